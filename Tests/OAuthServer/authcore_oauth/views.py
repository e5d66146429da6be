from datetime import timedelta

from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from oauth2_provider.decorators import protected_resource
from oauth2_provider.models import AccessToken, DeviceGrant, Grant, IDToken, RefreshToken


@protected_resource(advertise_metadata=True)
def me(request):
    """A protected resource: who the bearer token is for. A token that is expired, revoked or
    unknown is answered 401 with a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3.1), not
    DOT's default 403."""
    return JsonResponse({"username": request.resource_owner.get_username()})


def records(request):
    """The server's own count of what it issued, for the tests to check (tokens never leave)."""
    return JsonResponse(
        {
            "grants": Grant.objects.count(),
            "accessTokens": AccessToken.objects.count(),
            "refreshTokens": RefreshToken.objects.count(),
            "activeRefreshTokens": RefreshToken.objects.filter(revoked__isnull=True).count(),
            "idTokens": IDToken.objects.count(),
            # The device authorization grants, by status: authorization-pending, authorized, denied, expired.
            "deviceGrants": {
                status: DeviceGrant.objects.filter(status=status).count()
                for status in DeviceGrant.objects.values_list("status", flat=True).distinct()
            },
        }
    )


@csrf_exempt
@require_POST
def expire_access_tokens(request):
    """Makes every access token expire a second ago, as if the server's clock had moved on."""
    expired = AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    return JsonResponse({"expired": expired})
