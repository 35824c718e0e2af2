"""Placeholder until the page lands."""

import streamlit as st

st.title("projections")
