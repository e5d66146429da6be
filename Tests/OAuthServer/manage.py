#!/usr/bin/env python3
"""Django's command line for the test OAuth server (see README.md)."""
import os
import signal
import sys

if __name__ == "__main__":
    # A parent may start us with signals blocked (Foundation's Process on Linux does):
    # unblock them, so that SIGTERM and Ctrl-C stop the server.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "authcore_oauth.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
