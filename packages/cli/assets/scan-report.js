// The page of `loopguard scan --html`: reads the report embedded in #scan-data and draws the totals,
// two uPlot charts (waste over time, waste per project) and the evidence of every loop. No network.
(() => {
  const report = JSON.parse(document.getElementById('scan-data').textContent);
  const $ = (id) => document.getElementById(id);
  const count = (n) => (n === null || n === undefined ? '–' : n.toLocaleString('en-US'));
  const DAY = 86_400;
  /** A y scale from 0 to a little above the largest value. */
  const FROM_ZERO = { range: (_u, _min, max) => [0, Math.max(1, max) * 1.15] };

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  const stopped = (loop) => loop.stopStep !== null;
  const loops = report.sessions.flatMap((session) => session.loops.map((loop) => ({ session, loop })));
  const projectOf = (session) => session.project ?? '(unknown)';
  const shortProject = (project) => project.split('/').filter(Boolean).pop() ?? project;

  function renderTotals() {
    const t = report.totals;
    const cards = [
      ['sessions read', count(t.sessions)],
      ["sessions that looped to a stop (loopguard's or the replay's)", count(t.sessionsWithLoops)],
      ['sessions loopguard stopped', count(t.stoppedByLoopguard)],
      ...(t.stoppedOnSpendByLoopguard > 0
        ? [["sessions loopguard's spend guard stopped at their budget", count(t.stoppedOnSpendByLoopguard)]]
        : []),
      ['tool calls after the stop', count(t.wastedToolCalls)],
      ['tokens after the stop', count(t.wastedTokens)],
      ['nudges with no stop', count(t.nudgesWithoutStop)],
    ];
    if (t.costText !== null) {
      cards.push(['cost after the stop', t.costText]);
    }
    for (const [label, value] of cards) {
      const card = element('div', undefined, 'card');
      card.append(element('strong', value), element('span', label));
      $('totals').append(card);
    }
  }

  /**
   * Wasted tool calls and tokens per day of the sessions' start (the scan's days, `session.day`,
   * as the table and --since count them), as day numbers since 1970: the x axis counts whole days,
   * so one day is one bar among its neighbours (drawn at that day's UTC midnight, labelled in UTC).
   */
  function overTime() {
    const days = new Map();
    for (const { session, loop } of loops) {
      if (!stopped(loop) || session.day === null) continue;
      const day = Math.floor(Date.parse(`${session.day}T00:00:00Z`) / 1000 / DAY);
      const sums = days.get(day) ?? { calls: 0, tokens: 0 };
      sums.calls += loop.wastedToolCalls;
      sums.tokens += loop.wastedTokens ?? 0;
      days.set(day, sums);
    }
    const xs = [...days.keys()].sort((a, b) => a - b);
    return [xs, xs.map((x) => days.get(x).calls), xs.map((x) => days.get(x).tokens)];
  }

  /** `2026-11-10` as `Nov 10` (UTC, as the days are counted). */
  const dayLabel = (day) =>
    new Date(day * DAY * 1000).toLocaleDateString('en-US', {
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
  /** Axis numbers short enough for the axis: 1.2M, 340k, 12. */
  const compact = (n) =>
    n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : `${+n.toFixed(1)}`;
  /** Steps of an axis of counts: whole numbers only. */
  const WHOLE = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6];
  /** A y axis: compact numbers, room for them and for the label beside them. */
  const yAxis = (extra) => ({
    size: 64,
    gap: 4,
    labelGap: 2,
    values: (_u, splits) => splits.map(compact),
    ...extra,
  });

  /** Wasted tool calls per project, most first (at most 15). */
  function perProject() {
    const projects = new Map();
    for (const { session, loop } of loops) {
      if (!stopped(loop)) continue;
      const project = projectOf(session);
      projects.set(project, (projects.get(project) ?? 0) + loop.wastedToolCalls);
    }
    return [...projects.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  }

  function chartWidth(id) {
    return Math.max(320, $(id).clientWidth - 10);
  }

  function renderCharts() {
    const time = overTime();
    if (time[0].length === 0) {
      $('charts').hidden = true;
      return;
    }
    const bars = uPlot.paths.bars({ size: [0.6, 60] });
    const [first, last] = [time[0][0], time[0][time[0].length - 1]];
    const timeChart = new uPlot(
      {
        width: chartWidth('chart-time'),
        height: 240,
        scales: {
          // whole days, one either side: a single day is one bar in the middle, not a sliver
          x: { time: false, range: () => [first - 1, last + 1] },
          y: FROM_ZERO,
          tokens: FROM_ZERO,
        },
        axes: [
          {
            incrs: [1, 2, 7, 14, 28, 56, 91, 182, 364],
            space: 56,
            values: (_u, splits) => splits.map((day) => (Number.isInteger(day) ? dayLabel(day) : '')),
          },
          yAxis({ label: 'tool calls', incrs: WHOLE }),
          yAxis({ scale: 'tokens', side: 1, label: 'tokens', grid: { show: false } }),
        ],
        series: [
          { label: 'day', value: (_u, v) => (v === null ? '–' : dayLabel(v)) },
          {
            label: 'tool calls after the stop',
            stroke: '#c0392b',
            fill: '#c0392b55',
            paths: bars,
            points: { show: false },
          },
          {
            label: 'tokens after the stop',
            scale: 'tokens',
            stroke: '#2c3e50',
            width: 2,
            points: { show: true, size: 6 },
            value: (_u, v) => (v === null ? '–' : count(v)),
          },
        ],
      },
      time,
      $('chart-time'),
    );
    const projects = perProject();
    const projectChart = new uPlot(
      {
        width: chartWidth('chart-projects'),
        height: 240,
        scales: { x: { time: false, range: [-0.5, projects.length - 0.5] }, y: FROM_ZERO },
        axes: [
          {
            values: (_u, splits) =>
              splits.map((i) => (Number.isInteger(i) ? shortProject(projects[i]?.[0] ?? '') : '')),
            splits: () => projects.map((_p, i) => i),
          },
          yAxis({ label: 'tool calls', incrs: WHOLE }),
        ],
        series: [
          { label: 'project', value: (_u, v) => (v === null ? '–' : shortProject(projects[v]?.[0] ?? '')) },
          {
            label: 'tool calls after the stop',
            stroke: '#8e44ad',
            fill: '#8e44ad55',
            paths: bars,
            points: { show: false },
          },
        ],
      },
      [projects.map((_p, i) => i), projects.map(([, calls]) => calls)],
      $('chart-projects'),
    );
    // the charts, for a look from the browser's console (and the tests)
    window.scanCharts = { time: timeChart, projects: projectChart };
  }

  /** How a loop ended, in words. */
  const ENDED = {
    got_out: 'got out',
    session_end: 'session ended',
    stopped_by_loopguard: 'stopped by loopguard',
  };

  /** The cost lines the terminal prints too (per-model price, a `--budget`'s savings). */
  function renderCostLines() {
    for (const line of report.costLines) $('cost-lines').append(element('p', line));
  }

  function renderLoops() {
    const rows = loops.sort(
      (a, b) =>
        b.loop.wastedToolCalls - a.loop.wastedToolCalls ||
        (b.loop.wastedTokens ?? 0) - (a.loop.wastedTokens ?? 0),
    );
    // a subagent's run names the session it belongs to, last, as the terminal's table does (codex64)
    const subagents = rows.some(({ session }) => session.parentSessionId !== undefined);
    if (subagents) $('loops-head').append(element('th', 'subagent of'));
    for (const { session, loop } of rows) {
      const row = element('tr', undefined, stopped(loop) ? 'stopped' : 'nudged');
      const stop = `${loop.stopCall ?? '–'}${loop.byLoopguard ? ' (by loopguard)' : ''}`;
      const calls = `${loop.nudgeCall} / ${stop} / ${loop.endCall}`;
      const waste = stopped(loop)
        ? `${count(loop.wastedToolCalls)} calls${loop.wastedDeniedCalls ? ` (${count(loop.wastedDeniedCalls)} refused)` : ''}${loop.wastedTokens === null ? '' : `, ${count(loop.wastedTokens)} tokens`}${loop.costText === null ? '' : `, ${loop.costText}`}`
        : loop.loopguard === 'nudged'
          ? 'nudged by loopguard, no stop'
          : 'nudge only';
      const evidence = element('td');
      const details = element('details');
      details.append(element('summary', loop.evidence), element('pre', loop.message));
      details.append(element('div', `${session.file} · session ${session.sessionId}`, 'file'));
      evidence.append(details);
      row.append(
        element('td', shortProject(projectOf(session))),
        element('td', session.day ?? '–'),
        element('td', session.agent),
        element('td', loop.kindText ?? loop.kind),
        element('td', calls),
        element('td', ENDED[loop.ended] ?? loop.ended),
        element('td', waste),
        evidence,
      );
      if (subagents) row.append(element('td', session.parentSessionId ?? ''));
      $('loops').append(row);
    }
    if (rows.length === 0) $('no-loops').hidden = false;
  }

  renderTotals();
  renderCostLines();
  renderCharts();
  renderLoops();
  document.body.dataset.ready = 'true';
})();
