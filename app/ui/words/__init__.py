"""The UI's words: translations from the .ts files, the texts of typed failures and notes,
the tooltips of bound parameters, and the OS's reasons in the UI's language."""
