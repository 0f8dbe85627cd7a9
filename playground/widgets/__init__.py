"""Streamlit helpers shared by the views: the sidebar's controls, the token and encoding pickers, the page
header and drawing helpers (`page`), and the share link."""
