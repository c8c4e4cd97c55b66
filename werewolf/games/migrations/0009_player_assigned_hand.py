"""The organiser's deal is kept per player as a hand shaped by the ruleset (one role, or
a Lupusburg hand of two characters, a chest and a goal), and the seat it names besides
(alpha or first Burgomaster) as a mark: a deal of one role a seat moves into the hand."""

from django.db import migrations, models


def roles_into_hands(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    for player in Player.objects.exclude(assigned_role="").only("pk", "assigned_role"):
        Player.objects.filter(pk=player.pk).update(assigned_hand={"role": player.assigned_role})


def hands_into_roles(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    for player in Player.objects.only("pk", "assigned_hand"):
        role = player.assigned_hand.get("role") if isinstance(player.assigned_hand, dict) else None
        if isinstance(role, str) and role:
            Player.objects.filter(pk=player.pk).update(assigned_role=role[:16])


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0008_account_mail_and_retention"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="assigned_hand",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(roles_into_hands, hands_into_roles),
        migrations.RemoveField(
            model_name="player",
            name="assigned_role",
        ),
        migrations.RenameField(
            model_name="player",
            old_name="assigned_alpha",
            new_name="assigned_mark",
        ),
    ]
