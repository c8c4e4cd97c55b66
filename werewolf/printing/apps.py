from django.apps import AppConfig


class PrintingConfig(AppConfig):
    """The paper (werewolf/printing/): an app of its own for its management command
    (`print_cards`); it has no models, its print jobs are the games' (`PrintJob`)."""

    name = "werewolf.printing"
    label = "printing"
