"""How contextual? The classic measurements of contextuality, reproduced on the model in use."""

from __future__ import annotations

import streamlit as st

from explorer.figures.explain_notices import classic_notice, classic_random_notice
from explorer.figures.isotropy import isotropy_notice
from explorer.ui import how_contextual, messages, presentation
from explorer.ui.model_in_use import current_model, current_model_label
from explorer.ui.widgets import URL, header

header("pages/contextual.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()
compare = presentation.controls("contextual.settings").toggle(
    "Compare with the same model with random weights",
    key="contextual.random",
    bind=URL,
    help="The same architecture, untrained: what the layers do before any training. It takes "
    "as long again as the model itself.",
)
try:
    rows, note = how_contextual.lesson_rows(model.ref)
    trained = how_contextual.measurements(model.ref, rows)
except ValueError as error:
    messages.error(error)
    st.stop()
random = None
if compare:
    try:  # refused when the baseline does not fit beside the model: the page goes on without
        random = how_contextual.measurements(model.ref.random_twin(), rows, " (random weights)")
    except ValueError as error:
        messages.warning(error)
if note:
    messages.info(note)

notes = [*classic_notice(*trained), isotropy_notice(trained[0])]
if random is not None:
    notes.append(classic_random_notice(trained, random))
notice.info(
    f"What **{messages.escape(current_model_label())}** does:\n"
    + "\n".join(f"- {messages.escape(line)}" for line in notes)
)

how_contextual.chart(trained, random)
how_contextual.headline_code(model.ref, rows)
how_contextual.isotropy(model.ref, trained, random, rows)
how_contextual.references(trained)
how_contextual.measured(trained, rows)
how_contextual.one_word(model.ref, rows)
