from django.contrib.auth import views as auth_views
from django.urls import include, path
from oauth2_provider.views import OAuthServerMetadataView

from . import views

urlpatterns = [
    # The issuer is http://127.0.0.1:<port>/o: discovery at /o/.well-known/openid-configuration.
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    # RFC 8414 §3.1: the issuer's OAuth metadata, where its path follows the well-known name.
    path(".well-known/oauth-authorization-server/o", OAuthServerMetadataView.as_view()),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    # The app's own API, for bearer calls.
    path("api/me", views.me),
    # For the tests only: what the server has recorded, and a way to age its access tokens.
    path("test/records", views.records),
    path("test/expire-access-tokens", views.expire_access_tokens),
]
