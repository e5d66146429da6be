"""Who the user is, in the ID token and at the userinfo endpoint."""
from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    """DOT's validator, adding the standard profile and email claims (given by scope)."""

    def get_additional_claims(self, request):
        user = request.user
        return {
            "name": user.get_full_name(),
            "preferred_username": user.get_username(),
            "email": user.email,
            "email_verified": True,
        }
