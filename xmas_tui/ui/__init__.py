"""The Textual app: screens, boards and styles. Talks to a ``Table`` only."""
