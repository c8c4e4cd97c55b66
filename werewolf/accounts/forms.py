"""The organiser's own forms: the log in, profile, invitations, leaving the site, and
django-allauth's password forms with their password checked at the one gate (`passwords`)."""

from __future__ import annotations

from typing import Any

from allauth.account import forms as allauth_forms
from allauth.account.adapter import get_adapter
from allauth.core import context as allauth_context
from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from werewolf import addresses, limits
from werewolf.games.forms import timezone_choices, words

from . import passwords
from .models import Profile


def _helper(label: Any) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Profile
        fields = ["name", "language", "timezone"]
        help_texts = {
            "name": _("Shown to the organisers you run games with. Players see the game's name, not yours."),
            "language": _("This site's language for you, and the language a new game starts with."),
            "timezone": _("The time zone a new game starts with."),
        }

    timezone = forms.ChoiceField(label=_("Time zone"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["timezone"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = timezone_choices(str(self.instance.timezone or ""))
        field.help_text = ProfileForm.Meta.help_texts["timezone"]
        self.helper = _helper(_("Save"))


class InviteForm(forms.Form):
    email = forms.EmailField(
        label=_("Their e-mail address"),
        help_text=_("They are mailed a link that lets them make an organiser's account here."),
    )
    game = forms.TypedChoiceField(
        label=_("Also to run this game with you"),
        required=False,
        coerce=int,
        empty_value=None,
        help_text=_("Optional: they become its co-organiser and see its secrets."),
    )

    def __init__(self, *args: Any, games: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["game"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", _("No game, only an account"))] + [(game.pk, game.name) for game in games]
        self.helper = _helper(_("Send the invitation"))


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("To be sure it is you."),
    )

    def __init__(self, *args: Any, user: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.request = request
        self.limited: limits.Limited | None = None
        self.helper = _helper(_("Delete my account and my games"))
        self.helper.inputs[0].field_classes = "btn btn-danger"

    def clean_password(self) -> str:
        wrong = forms.ValidationError(_("That is not your password."), code="wrong_password")
        return passwords.clean_password(self, "password", self.user, self.request, wrong)


class OrganiserLoginForm(AuthenticationForm):
    """The organiser's log in (the admin's too: it sends its log in here); a refusal (a
    wrong password) is tied to both fields, so a screen reader says why with each
    (templates/registration/login.html shows it). Wrong passwords count against the
    account and the network address as at every other door (`passwords`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("User name or e-mail address")

    def clean(self) -> dict[str, Any]:
        key = passwords.key_for_name(str(self.data.get("username") or ""))
        try:
            passwords.before(self.request, key)
        except limits.Limited as limited:
            raise passwords.refusal(limited) from None
        try:
            return super().clean()
        except forms.ValidationError:
            if self.user_cache is None:  # a wrong password, not an account that may not log in yet
                passwords.failed(self.request, key)
            raise

    def confirm_login_allowed(self, user: Any) -> None:
        """An account made by the site's sign-up logs in once it has confirmed an address
        (the right password then sends the link again, within the mail limit). An account
        the operator made never waits for a confirmation: nothing anyone else does (a
        password reset asked for its address) can lock it out."""
        super().confirm_login_allowed(user)
        from allauth.account.models import EmailAddress
        from allauth.core import ratelimit

        if not Profile.of(user).signed_up or EmailAddress.objects.filter(user=user, verified=True).exists():
            return
        address = EmailAddress.objects.filter(user=user).order_by("-primary", "pk").first()
        if address is None:  # nothing to confirm: the sign-up's address went; the operator's word is needed
            raise forms.ValidationError(words("includes/unconfirmed.html", {"email": ""}), code="unconfirmed")
        # One count per address with the sign-up's own mails (django-allauth's).
        resent = ratelimit.consume(self.request, action="confirm_email", key=address.email.lower())
        if resent:
            address.send_confirmation(self.request, signup=False)
        message = words("includes/unconfirmed.html", {"email": address.email, "resent": resent})
        raise forms.ValidationError(message, code="unconfirmed")

    def full_clean(self) -> None:
        super().full_clean()
        if self.non_field_errors():
            for field in self.fields.values():
                field.widget.attrs.update({"aria-invalid": "true", "aria-describedby": "login-error"})


class ChangePasswordForm(allauth_forms.ChangePasswordForm):  # type: ignore[misc]
    """django-allauth's password change, its current password checked at the one gate."""

    def clean_oldpassword(self) -> str:
        wrong = get_adapter().validation_error("enter_current_password")
        return passwords.clean_password(self, "oldpassword", self.user, allauth_context.request, wrong)


class ReauthenticateForm(allauth_forms.ReauthenticateForm):  # type: ignore[misc]
    """django-allauth's re-authentication (before a sensitive change), at the one gate."""

    def clean_password(self) -> str:
        wrong = get_adapter().validation_error("incorrect_password")
        return passwords.clean_password(self, "password", self.user, allauth_context.request, wrong)


class SignupForm(allauth_forms.SignupForm):  # type: ignore[misc]
    """django-allauth's sign-up, where an address belongs to the account that confirmed
    it: an address another account only typed (and never confirmed) blocks nobody, so no
    stranger can hold a colleague's address against their sign-up. An address an account
    confirmed answers as allauth does for any taken address: the same page, and a mail to
    it saying an account has it."""

    def validate_unique_email(self, value: str) -> str:
        self.account_already_exists = addresses.owner(value) is not None
        return value
