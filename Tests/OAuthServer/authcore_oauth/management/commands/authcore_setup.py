"""Fills AUTHCORE_OAUTH_DATA: the database, the signing key, the applications and the user."""
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from oauth2_provider.models import Application

# What the tests sign in with (OpenIDConnectServerTests.swift names them too).
USER = {"username": "alice", "password": "correct horse battery staple", "email": "alice@example.com"}
APP_CLIENT_ID = "authcore-app"
REDIRECT_URI = "org.authcore.tests:/oauth2redirect"
INTROSPECTION_CLIENT_ID = "authcore-introspection"
INTROSPECTION_SECRET = "introspection-secret"
DEVICE_CLIENT_ID = "authcore-device"


class Command(BaseCommand):
    help = "Creates the test server's database, OpenID Connect key, applications and user."

    def handle(self, *args, **options):
        settings.DATA.mkdir(parents=True, exist_ok=True)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        settings.SIGNING_KEY.write_bytes(pem)
        call_command("migrate", verbosity=0)

        user = get_user_model().objects.create_user(first_name="Alice", last_name="Liddell", **USER)
        # The app: a public client (PKCE, no secret), signed in without a consent page.
        Application.objects.create(
            name="AuthCore app",
            client_id=APP_CLIENT_ID,
            client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=REDIRECT_URI,
            post_logout_redirect_uris=REDIRECT_URI,
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
            user=user,
        )
        # A resource server's own credentials, for the introspection endpoint (RFC 7662).
        Application.objects.create(
            name="AuthCore introspection",
            client_id=INTROSPECTION_CLIENT_ID,
            client_secret=INTROSPECTION_SECRET,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
        )
        # A device without a browser: the device authorization grant (RFC 8628).
        Application.objects.create(
            name="AuthCore device",
            client_id=DEVICE_CLIENT_ID,
            client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_DEVICE_CODE,
            algorithm=Application.RS256_ALGORITHM,
        )
        self.stdout.write(f"set up {settings.DATA}")
