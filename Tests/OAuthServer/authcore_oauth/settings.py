"""A django-oauth-toolkit server for AuthCore's end-to-end tests, on loopback only.

Everything it keeps (the SQLite database and the OpenID Connect signing key) lives in the folder
named by AUTHCORE_OAUTH_DATA, which `manage.py authcore_setup` fills.
"""
import os
from pathlib import Path

DATA = Path(os.environ.get("AUTHCORE_OAUTH_DATA", "."))
SIGNING_KEY = DATA / "oidc.key"

SECRET_KEY = "authcore-test-server-only"  # A throwaway server on loopback: nothing to protect.
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
USE_TZ = True

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "authcore_oauth",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "authcore_oauth.urls"
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA / "db.sqlite3",
        # Concurrent requests write (a refresh, a revocation): wait for the lock, take it up front.
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
}
# Fast hashing for the test user's password and the confidential client's secret.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGIN_URL = "/accounts/login/"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": SIGNING_KEY.read_text() if SIGNING_KEY.exists() else "",
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OAUTH2_VALIDATOR_CLASS": "authcore_oauth.validator.Validator",
    # DOT's OpenID Connect server, but its device grant sends an ID token too (server.py says why).
    "OIDC_SERVER_CLASS": "authcore_oauth.server.Server",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your name",
        "email": "Your email address",
    },
    "PKCE_REQUIRED": True,
    # Rotation is DOT's default; a refresh token presented twice revokes its whole family.
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # The app's private-use redirect scheme (RFC 8252 §7.1).
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http", "org.authcore.tests"],
    # The device authorization grant (RFC 8628): /o/device-authorization/, the user enters the
    # code at /o/device/ (authcore_serve makes it absolute once it knows its port).
    "OAUTH_DEVICE_VERIFICATION_URI": "/o/device/",
    # RFC 9700's recommendations, which DOT 4.0 will make the default: no implicit or password
    # grant, no plain PKCE, no token in a query, the `iss` in the authorization response
    # (RFC 9207), tokens stored as hashes.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.server": {"handlers": ["console"], "level": "INFO"},
        "django.request": {"handlers": ["console"], "level": "ERROR"},
    },
}
