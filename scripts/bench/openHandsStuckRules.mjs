// Our own re-implementation of the rules of OpenHands' StuckDetector (Python, not installable
// here), from their description: 4 identical action/observation pairs, 3 identical actions each
// answered by an error, 3 identical agent messages with no observation between them, and A-B-A-B
// ping-pong over the last 6 actions and observations. Equality is exact (no normalisation of
// line numbers, addresses or timestamps); a detection halts the agent at once.

const same = (values) => values.every((value) => value === values[0]);

/** One run's detector: `observe(step)` returns 'stop' when stuck, else 'continue'. */
export class OpenHandsStuckRules {
  actions = [];
  observations = [];
  errors = [];
  messages = [];
  observationSinceMessage = false;

  observe(step) {
    if (step.type === 'action') {
      this.actions.push(typeof step.input === 'string' ? step.input.trim() : JSON.stringify(step.input));
      if (this.actions.length > 6) this.actions.shift();
      return 'continue';
    }
    if (step.type === 'message') {
      if (this.observationSinceMessage) this.messages = [];
      this.observationSinceMessage = false;
      this.messages.push(step.text.trim());
      if (this.messages.length > 3) this.messages.shift();
      return this.messages.length === 3 && same(this.messages) ? 'stop' : 'continue';
    }
    this.observationSinceMessage = true;
    this.observations.push(step.output.trim());
    this.errors.push(step.error === true);
    if (this.observations.length > 6) {
      this.observations.shift();
      this.errors.shift();
    }
    return this.stuck() ? 'stop' : 'continue';
  }

  stuck() {
    const a = this.actions;
    const o = this.observations;
    if (a.length >= 4 && o.length >= 4 && same(a.slice(-4)) && same(o.slice(-4))) return true;
    if (a.length >= 3 && same(a.slice(-3)) && this.errors.slice(-3).every(Boolean) && this.errors.length >= 3)
      return true;
    if (a.length >= 6 && o.length >= 6) {
      const pingPong = (xs) =>
        xs[0] !== xs[1] && xs[0] === xs[2] && xs[2] === xs[4] && xs[1] === xs[3] && xs[3] === xs[5];
      if (pingPong(a.slice(-6)) && pingPong(o.slice(-6))) return true;
    }
    return false;
  }
}
