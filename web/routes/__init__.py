"""The routes of the HTTP face, one module per part of the API."""
