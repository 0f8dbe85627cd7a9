"""Where an encoding comes from: the registry of built-ins, OpenAI's declarations, model names,
the catalog of makers and models, a user's uploaded files, and (switched on by the environment)
the tokenizers in this machine's Hugging Face cache and Ollama folder.
"""
