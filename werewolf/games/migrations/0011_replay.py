"""A game's replay may be kept for its organisers only, even once the game is over."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0010_standby"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="replay_private",
            field=models.BooleanField(default=False, verbose_name="keep the replay private"),
        ),
    ]
