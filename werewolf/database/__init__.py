"""PostgreSQL as Django has it, with two things a busy request needs (werewolf/settings.py
names it as the engine whenever DATABASE_URL is a PostgreSQL one): see `base`."""
