"""Serves the test server on a free loopback port, and prints its address once it listens."""
import sys

from django.core.management.base import BaseCommand
from django.core.servers.basehttp import WSGIServer, get_internal_wsgi_application, run
from oauth2_provider.settings import oauth2_settings


class Server(WSGIServer):
    request_queue_size = 64  # Room for the tests' bursts of concurrent connections.


class Command(BaseCommand):
    help = "Serves on 127.0.0.1 on a free port, threaded; prints http://127.0.0.1:<port> first."

    def handle(self, *args, **options):
        def listening(port):
            address = f"http://127.0.0.1:{port}"
            # RFC 8628 §3.2: the device flow's verification_uri is absolute, and the port is known now.
            oauth2_settings.OAUTH_DEVICE_VERIFICATION_URI = f"{address}/o/device/"
            sys.stdout.write(f"{address}\n")
            sys.stdout.flush()

        run("127.0.0.1", 0, get_internal_wsgi_application(), threading=True, on_bind=listening, server_cls=Server)
