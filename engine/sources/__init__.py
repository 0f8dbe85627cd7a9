"""Where an encoding comes from: the registry of built-ins, OpenAI's declarations, model names,
the catalog of makers and models, and a user's uploaded files.
"""
