"""After the meeting: its minutes, composed from the record when it ends (`compose`), stored
with the meeting (`closing.close_minutes`), rendered as Markdown and a chat message
(`render`). Import the modules themselves: the package stays light, so reading stored minutes
loads no model code."""
