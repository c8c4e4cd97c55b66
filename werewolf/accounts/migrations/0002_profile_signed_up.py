from django.db import migrations, models


def mark_signed_up(apps, schema_editor):
    """Accounts made before the mark: those with an address row came by the sign-up (as the
    log in judged them until now); those without were made by the operator."""
    Profile = apps.get_model("accounts", "Profile")
    EmailAddress = apps.get_model("account", "EmailAddress")
    User = apps.get_model("auth", "User")
    for user_id in User.objects.filter(pk__in=EmailAddress.objects.values("user_id")).values_list("pk", flat=True):
        Profile.objects.update_or_create(user_id=user_id, defaults={"signed_up": True})


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="signed_up",
            field=models.BooleanField(
                default=False,
                help_text="Made by the site's sign-up, not by the operator: logs in once an address is confirmed.",
            ),
        ),
        migrations.RunPython(mark_signed_up, migrations.RunPython.noop),
    ]
