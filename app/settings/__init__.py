"""Engram's settings by domain: one class per thing configured, each a group of fields with their
environment variables. `app.config.Settings` composes them into the one object the code reads;
only it reads the environment. docs/configuration.md is generated from these classes
(`python -m app.config_docs`): a class's docstring opens its section (first line the title), a
field's description is its row."""
