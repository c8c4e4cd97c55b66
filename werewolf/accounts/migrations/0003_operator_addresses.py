from django.db import migrations


def confirm_operator_addresses(apps, schema_editor):
    """Accounts the operator made before `ensure_organiser --email` confirmed the address it
    gave kept it only as `User.email`: confirm it now (the operator's word, as the command
    gives it today), unless another account confirmed it first. Accounts with any address
    row, or made by the sign-up, are left as they are."""
    User = apps.get_model("auth", "User")
    Profile = apps.get_model("accounts", "Profile")
    EmailAddress = apps.get_model("account", "EmailAddress")
    signed_up = set(Profile.objects.filter(signed_up=True).values_list("user_id", flat=True))
    with_rows = set(EmailAddress.objects.values_list("user_id", flat=True))
    for user in User.objects.exclude(email="").exclude(pk__in=with_rows | signed_up):
        if EmailAddress.objects.filter(email__iexact=user.email, verified=True).exists():
            continue
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_profile_signed_up")]

    operations = [migrations.RunPython(confirm_operator_addresses, migrations.RunPython.noop)]
