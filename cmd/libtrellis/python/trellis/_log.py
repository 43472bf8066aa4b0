"""CRF.training_log_: what trellis logged while training, in the shape of
sklearn-crfsuite's training_log_ (python-crfsuite's TrainLogParser):
iterations, last_iteration, training_seconds and log."""

_SKIP = ("level", "learner", "time", "message")
_STEP_SKIP = _SKIP + ("eta",)  # the time left, meaningless once trained


class TrainingLog:
    """The log of one training run.

    events: every event trellis logged, a dict each ("message", "level",
    "time" and the event's fields).

    iterations: one dict per iteration (L-BFGS) or epoch (SGD, the online
    learners): "num" (1-based), "loss" (the CRF's objective; the online
    learners have "train_error", the fraction of training tokens they got
    wrong), "time" (seconds this step took), "elapsed"
    (seconds since training started), "dev_score" with a dev set,
    "scores" ({}: trellis does not score labels per step, as CRFsuite does
    with a holdout set) and the learner's own fields ("gnorm",
    "evaluations", ...).

    last_iteration: the last of iterations (None before any).

    training_seconds: the elapsed time at the last step.

    log: the events as text lines, as verbose=True prints them.
    """

    def __init__(self, events):
        self.events = list(events)
        self.iterations = []
        previous = 0.0
        for e in self.events:
            step = _step(e)
            if step is None:
                continue
            it = {"num": step, "scores": {}}
            for key, value in e.items():
                if key in _STEP_SKIP or key == _unit(e):
                    continue
                it["dev_score" if key == "dev" else key] = value
            if "elapsed" in it:
                it["time"] = it["elapsed"] - previous
                previous = it["elapsed"]
            self.iterations.append(it)
        self.last_iteration = self.iterations[-1] if self.iterations else None
        self.training_seconds = self.last_iteration.get("elapsed") if self.last_iteration else None
        self.log = [_line(e) for e in self.events]

    def __repr__(self):
        return "<TrainingLog: %d events, %d iterations>" % (len(self.events), len(self.iterations))


def _unit(event):
    """The step's unit ("iteration", "epoch", "sgd epoch"): the message
    after the learner's name."""
    learner, message = event.get("learner", ""), event.get("message", "")
    if learner and message.startswith(learner + " "):
        return message[len(learner) + 1:]
    return None


def _step(event):
    """The step number of an iteration event, else None. A step event's
    message is "<learner> <unit>" and it holds the unit as a field, and
    the elapsed time (a dev score event has the first two, not the last)."""
    unit = _unit(event)
    step = event.get(unit) if unit else None
    if isinstance(step, int) and "elapsed" in event:
        return step
    return None


def _line(event):
    fields = " ".join("%s=%s" % (k, v) for k, v in event.items() if k not in _SKIP)
    return ("%s %s" % (event.get("message", ""), fields)).strip()
