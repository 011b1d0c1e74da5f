"""Claims every discard it may (depth 1) and passes when it is the next player asked about others' claims;
otherwise plays the first option. With SECONDS (argv[1]) it sleeps that long before answering its first claim
window, a claimant that times out."""

import sys
import time

from sample_bots.bad._base import play, serve

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
slept = False


def answer(request, n):
    global slept
    decision = request["decision"]
    if decision["kind"] == "claim" and decision["phase"] in ("claim", "priority"):
        if decision["phase"] == "claim" and seconds and not slept:
            slept = True
            time.sleep(seconds)
        op = {"op": "claim", "depth": 1} if decision["phase"] == "claim" else {"op": "pass"}
        if op in decision["options"] or op["op"] == "pass":
            return {"type": "play", "id": request["id"], "ops": [op]}
    return play(request)


serve("claimer", answer)
