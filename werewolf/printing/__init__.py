"""Paper: every printed document as PDF, rendered by WeasyPrint from templates/print/.

- `documents`: what each document holds, built from a game or a ruleset (role cards,
  notecards, the tally, the score sheet, the record, the moderator's script).
- `layout`: how it goes on paper (WeasyPrint's rendering, faces tiled onto sheets, crop
  marks, what a thread keeps from one document to the next).
- `jobs`: documents kept by content, a large one rendered by a worker a part at a time.

Printing reads the games (`werewolf.games`); the games never import printing."""
