"""The harness that drives the app from outside, for the browser tests and the benches.

One module per job: :mod:`harness.server` (``streamlit run app.py`` on a free port, its log
and memory), :mod:`harness.browser` (headless Chromium and tabs), :mod:`harness.visits` (the
pages, waits for script runs, screenshots), :mod:`harness.widgets` (typing, choosing, reading
charts) and :mod:`harness.stclient` (a light websocket client: many sessions, no browser).
Two commands: ``python -m harness.screenshots`` (a screenshot of every page) and
``python -m harness.first_visit`` (what a fresh server's first visitor sees, and when).
"""
