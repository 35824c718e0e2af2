"""Plotly figure builders: pure functions from arrays to ``plotly.graph_objects.Figure``.

One module per page topic; pages only call ``st.plotly_chart`` on what these return.
"""
