"""Tools around the app: screenshots of every page and the browser-test harness.

See :mod:`tools.screenshots` (the command and the names the tests import) and
:mod:`tools.first_visit` (what a fresh server's first visitor sees, and when).
"""
