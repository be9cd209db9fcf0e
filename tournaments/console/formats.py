"""The console's page of an event's seating script (``draws.services.seating_script_set``): the
players' numbers to write it with, the script typed in or uploaded, each faulty line shown as an
error of the form (nothing is stored then), and the script kept."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ..draws import services as draws
from ..errors import ScriptRefused
from ..standings.selectors import start_numbers
from .forms import ScriptForm
from .views import VIA, _event, _form_status, _names, refusal


@login_required
def seating_script(request, pk: int):
    event = _event(request, pk)
    form = ScriptForm(request.POST or None, request.FILES or None,
                      initial={"text": (event.seating_script or {}).get("text", "")})
    if request.method == "POST" and form.is_valid():
        with refusal(request, answered_here=lambda error: isinstance(error, ScriptRefused)) as attempt:
            draws.seating_script_set(event, text=form.cleaned_data["text"], by_user=request.user, via=VIA)
        if attempt.done:
            messages.success(request, _("The seating script is stored. Choose “Seating script” when you draw a round."))
            return redirect("console:seating_script", event.pk)
        if isinstance(attempt.error, ScriptRefused):
            form.add_error("text", attempt.error.message)
            for line in attempt.error.lines:
                form.add_error("text", line)
    numbers = start_numbers(event)
    names = _names(request, numbers)
    script = event.seating_script
    rounds = []
    if script:
        for number, tables in sorted(script["rounds"].items(), key=lambda item: int(item[0])):
            rounds.append({"number": number, "tables": [
                {"table": t["table"], "players": [f"{n} {names.get(p, '')}" for n, p in zip(t["numbers"], t["players"])]}
                for t in tables]})
    return render(request, "console/script.html", {
        "event": event, "form": form, "rounds": rounds,
        "numbers": [{"number": n, "name": names.get(p, "")} for p, n in sorted(numbers.items(), key=lambda i: i[1])],
    }, status=_form_status(request) if request.method == "POST" else 200)


@login_required
@require_POST
def seating_script_remove(request, pk: int):
    event = _event(request, pk)
    with refusal(request) as attempt:
        draws.seating_script_remove(event, by_user=request.user, via=VIA)
    if attempt.done:
        messages.success(request, _("The seating script is removed."))
    return redirect("console:seating_script", event.pk)
