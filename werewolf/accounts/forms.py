"""The organiser's own forms: profile, invitations, leaving the site."""

from __future__ import annotations

from typing import Any

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.utils.translation import gettext_lazy as _

from werewolf.games.forms import timezone_choices

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

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.helper = _helper(_("Delete my account and my games"))
        self.helper.inputs[0].field_classes = "btn btn-danger"

    def clean_password(self) -> str:
        password = str(self.cleaned_data["password"])
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."), code="wrong_password")
        return password
