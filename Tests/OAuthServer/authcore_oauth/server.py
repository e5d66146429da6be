"""DOT's OpenID Connect server, with ID tokens from the device authorization grant.

django-oauth-toolkit 3.4.1 takes oauthlib's plain OAuth 2.0 device code grant: a device that asks
for the `openid` scope gets access and refresh tokens but no ID token, as no specification makes
it send one (OpenID Connect Core defines the browser flows only). The providers an app meets do
send one (Google, Microsoft, Okta, Keycloak), and `OpenIDConnectClient` signs in only with an ID
token whose claims it has checked; so this server's device grant adds one as its authorization
code grant does (without a nonce: the device flow has none).
"""
from oauthlib.oauth2.rfc8628.grant_types import DeviceCodeGrant as OAuth2DeviceCodeGrant
from oauthlib.openid import Server as OpenIDServer
from oauthlib.openid.connect.core.grant_types.base import GrantTypeBase as OpenIDGrantTypeBase

DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"


class DeviceCodeGrant(OAuth2DeviceCodeGrant):
    """oauthlib's device code grant, adding the ID token when `openid` is among the scopes."""

    add_id_token = OpenIDGrantTypeBase.add_id_token
    id_token_hash = OpenIDGrantTypeBase.id_token_hash

    def create_token_response(self, request, token_handler):
        token_handler = IDTokenHandler(token_handler, lambda token: self.add_id_token(token, token_handler, request))
        return super().create_token_response(request, token_handler)


class IDTokenHandler:
    """A token handler whose tokens get an ID token before they are saved."""

    def __init__(self, handler, add_id_token):
        self.handler = handler
        self.add_id_token = add_id_token

    def create_token(self, request, refresh_token=False, **kwargs):
        return self.add_id_token(self.handler.create_token(request, refresh_token, **kwargs))

    def __getattr__(self, name):
        return getattr(self.handler, name)


class Server(OpenIDServer):
    """oauthlib's OpenID Connect server with the device grant above."""

    def __init__(self, request_validator, token_expires_in=None, token_generator=None, refresh_token_generator=None, **kwargs):
        super().__init__(request_validator, token_expires_in, token_generator, refresh_token_generator, **kwargs)
        self.device_code_grant = DeviceCodeGrant(request_validator, **kwargs)
        self._grant_types[DEVICE_CODE] = self.device_code_grant
