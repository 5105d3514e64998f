// The loopguard dashboard. Every value from the server is written with textContent (never as
// HTML), so session ids, task ids and entry texts cannot inject markup or script.

import { formatUsd } from './formatUsd.js';

(() => {
  const VERDICTS = ['running', 'clean', 'nudged', 'stopped', 'stopped_on_spend'];
  // Known kinds of entry first, in this order and colour; any other kind stored is plotted too.
  const ACTION_ORDER = [
    'nudge',
    'stop',
    'spend_warning',
    'spend_stop',
    'call_refused',
    'force_next',
    'unblock_authority',
    'escalate',
  ];
  const COLORS = {
    nudge: '#facc15',
    stop: '#ef4444',
    spend_warning: '#fdba74',
    spend_stop: '#a78bfa',
    call_refused: '#f97316',
    force_next: '#60a5fa',
    unblock_authority: '#22d3ee',
    escalate: '#be123c',
  };
  const SPARE_COLORS = ['#34d399', '#94a3b8', '#f472b6', '#a3e635', '#2dd4bf'];
  // Bucket widths of the chart, seconds: the narrowest that keeps the span within MAX_BUCKETS.
  const BUCKETS = [
    [60, 'minute'],
    [300, '5 minutes'],
    [900, '15 minutes'],
    [3600, 'hour'],
    [6 * 3600, '6 hours'],
    [86400, 'day'],
    [7 * 86400, 'week'],
    [30 * 86400, '30 days'],
  ];
  const MAX_BUCKETS = 60;
  const MIN_BUCKETS_SHOWN = 10;
  const TASK_PAGE_SIZE = 100;
  const SESSION_PAGE_SIZE = 25;

  const recoveries = new Map(); // id -> recovery view
  let taskCursors = [undefined]; // cursor of each task page visited; the last is the current page
  let taskNextCursor = null;
  let sessionCursors = [undefined];
  let sessionNextCursor = null;
  const openSessions = new Set(); // keys of the sessions whose entries are shown
  let chart = null;
  let chartSeriesKey = '';
  let chartRange = [0, 1]; // the x range shown, epoch seconds
  let chartCounts = []; // per series, the entries of each bucket (the legend shows them, not the stack)
  let refreshTimer = null;

  const $ = (id) => document.getElementById(id);
  const el = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  };
  const time = (ms) => (ms == null ? '–' : new Date(ms).toLocaleTimeString());
  /** The time of day when `ms` is today, else the date and the time. */
  const when = (ms) => {
    if (ms == null) return '–';
    const date = new Date(ms);
    if (date.toDateString() === new Date().toDateString()) return date.toLocaleTimeString();
    return date.toLocaleString(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
  };
  const count = (value) => Math.round(value).toLocaleString('en-US');
  const words = (name) => String(name).replaceAll('_', ' ');
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const sessionKey = (s) => JSON.stringify([s.agent, s.sessionId, s.projectDir]);

  // What the live label says of the event stream, shown again once every route that failed reads.
  let streamState = 'connecting…';
  const failing = new Set();

  async function getJson(path) {
    const route = path.split('?')[0];
    const response = await fetch(path, { headers: { Accept: 'application/json' } });
    if (!response.ok) {
      failing.add(route);
      // the server's own words (a store out of reach says what it could not read), else the status
      const body = await response.json().catch(() => null);
      throw new Error(typeof body?.error === 'string' ? body.error : `${path}: HTTP ${response.status}`);
    }
    if (failing.delete(route) && failing.size === 0) $('live').textContent = streamState;
    return response.json();
  }

  // ---- header and tasks (GET /status) ----

  function isLooping(task) {
    return task.lastRecovery !== null;
  }

  async function loadStatus() {
    const cursor = taskCursors[taskCursors.length - 1];
    const query = new URLSearchParams({ limit: String(TASK_PAGE_SIZE), sessionLimit: '1' });
    if (cursor) query.set('cursor', cursor);
    const status = await getJson(`status?${query}`);
    renderSessionCounts(status.sessions);
    // The project's off switch, in `loopguard status`'s words: its sessions are from before.
    $('hooks-off').hidden = typeof status.hooksOff !== 'string';
    $('hooks-off').textContent = status.hooksOff ? `hooks: ${status.hooksOff}` : '';
    // What the project's configuration changes in the guard, and the file it came from (trust52).
    $('hooks-configured').hidden = typeof status.hooksConfigured !== 'string';
    $('hooks-configured').textContent = status.hooksConfigured ? `hooks: ${status.hooksConfigured}` : '';
    // A price below the pricing library: every budget in dollars counts those replies at it (trust54).
    $('prices-below').hidden = typeof status.pricesBelowLibrary !== 'string';
    $('prices-below').textContent = status.pricesBelowLibrary ? `spend: ${status.pricesBelowLibrary}` : '';
    const hasTasks = status.page.total > 0 || status.source === 'loop';
    for (const box of document.querySelectorAll('.tasks-only')) box.hidden = !hasTasks;
    $('tasks-section').hidden = !hasTasks;
    $('main').classList.toggle('no-tasks', !hasTasks);
    $('running').textContent = status.running ? 'yes' : 'no';
    $('tick-count').textContent = String(status.tickCount);
    $('task-total').textContent = String(status.page.total);
    if (status.breaker) {
      $('breaker-box').hidden = false;
      const badge = el('span', status.breaker.state, `badge ${status.breaker.state}`);
      $('breaker').replaceChildren(badge);
    }
    const run = status.breaker && typeof status.breaker.runId === 'string' ? status.breaker : null;
    $('run-box').hidden = run === null;
    if (run) {
      // The run's state as its store reports it: running, paused, interrupted (owner gone), …
      const state = String(run.runStatus);
      // its status in the server's words (`limit reached`, not `budget_spent`: story56)
      $('run').replaceChildren(
        `${run.runId} `,
        el('span', run.statusText ?? state, `badge run-${state.replace(/[^a-z_]/g, '')}`),
      );
      if (run.reason) $('run').title = run.reason;
    }
    const tasks = [...status.tasks].sort((a, b) => Number(isLooping(b)) - Number(isLooping(a)));
    $('looping-count').textContent = String(tasks.filter(isLooping).length);
    const rows = tasks.map((task) => {
      const row = el('tr', undefined, isLooping(task) ? 'looping' : '');
      row.dataset.taskId = task.id;
      row.append(
        el('td', task.id),
        el('td', task.status + (task.blockedReason ? ` — ${task.blockedReason}` : '')),
        el('td', task.attemptCount),
        el('td', time(task.lastAttempt)),
      );
      const last = el('td');
      // its action in the server's words (`escalate`, not `loop_escalation`: sess68)
      if (task.lastRecovery)
        last.append(el('span', task.lastRecoveryText ?? task.lastRecovery, `badge ${task.lastRecovery}`));
      row.append(last);
      return row;
    });
    $('tasks').tBodies[0].replaceChildren(...rows);
    taskNextCursor = status.page.nextCursor;
    $('next-page').disabled = taskNextCursor === null;
    $('prev-page').disabled = taskCursors.length <= 1;
    $('page-info').textContent = `page ${taskCursors.length}`;
  }

  // money is the server's words (core's formatUsd: `$0.0038`, never `$0.00`)
  function renderSessionCounts({ counts, spendByAgent, spent }) {
    let total = 0;
    for (const verdict of VERDICTS) {
      const n = counts[verdict] ?? 0;
      total += n;
      $(`verdict-${verdict}`).textContent = String(n);
    }
    $('session-total').textContent = String(total);
    const spend = spendByAgent;
    $('spent-box').hidden = spend.length === 0;
    $('spent').textContent = spent;
    $('spent').title = spend.map((s) => `${s.agent}: ${s.cost}, ${count(s.tokens)} tokens`).join('\n');
  }

  // ---- sessions (GET /sessions, /sessions/entries) ----

  /** `same error at call 4`, `budget reached` (a spend stop without its call: the server's words) or `–`. */
  function stopText({ stop }) {
    if (stop === null) return '–';
    const kind = stop.reason ?? stop.kind ?? (stop.topic === 'spend_stop' ? 'spend' : 'loop');
    return stop.call == null ? kind : `${kind} at call ${stop.call}`;
  }

  function sessionRow(session) {
    const row = el('tr', undefined, `session verdict-${session.verdict}`);
    row.dataset.sessionKey = sessionKey(session);
    row.dataset.verdict = session.verdict;
    row.tabIndex = 0;
    row.title = session.summary;
    const id = el('td');
    id.append(el('span', session.sessionId, 'session-id'));
    // whose subagent it is, as `status` and `scan` name it (sess70); its type is in its detail
    if (session.parentSessionId)
      id.append(el('small', ` subagent of ${session.parentSessionId}`, 'subagent-of'));
    if (session.projectDir) id.append(el('div', session.projectDir, 'project'));
    row.append(
      el('td', session.agent),
      id,
      el('td', when(session.startedAt)),
      el('td', when(session.lastActive)),
      el('td', session.toolCalls ?? '–'),
      el('td', session.nudges),
      el('td', stopText(session)),
      // the server's words (one rule for every door: the summary's, formatUsd's digits)
      el('td', session.spendSummary || '–'),
    );
    const verdict = el('td');
    verdict.append(el('span', words(session.verdict), `badge verdict ${session.verdict}`));
    row.append(verdict);
    const toggle = () => {
      const key = sessionKey(session);
      if (openSessions.has(key)) openSessions.delete(key);
      else openSessions.add(key);
      renderDetail(row, session).catch(showError);
    };
    row.addEventListener('click', toggle);
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        toggle();
      }
    });
    return row;
  }

  /** Shows (or hides) the row under a session with its summary and its entries. */
  async function renderDetail(row, session) {
    const key = sessionKey(session);
    const next = row.nextElementSibling;
    if (next?.classList.contains('session-detail')) next.remove();
    row.classList.toggle('open', openSessions.has(key));
    if (!openSessions.has(key)) return;
    const detail = el('tr', undefined, 'session-detail');
    detail.dataset.sessionKey = key;
    const cell = el('td');
    cell.colSpan = 9;
    cell.append(el('p', session.summary, 'session-summary'));
    const facts = [
      `${session.agent} session ${session.sessionId}`,
      session.projectDir ? `in ${session.projectDir}` : null,
      session.parentSessionId
        ? `subagent of ${session.parentSessionId}${session.agentType ? ` (${session.agentType})` : ''}`
        : null,
      `started ${when(session.startedAt)}, last active ${when(session.lastActive)}`,
      session.spend
        ? `${count(session.spend.tokens)} tokens, ${session.spend.cost}${session.spend.unpricedTokens > 0 ? ` (${count(session.spend.unpricedTokens)} tokens of unpriced models)` : ''}`
        : null,
      session.runStatusText ? `run ${session.runStatusText}` : null,
    ].filter((fact) => fact !== null);
    cell.append(el('p', facts.join(' · '), 'hint'));
    const list = el('ol', undefined, 'session-entries');
    list.append(el('li', 'loading…', 'hint'));
    cell.append(list);
    detail.append(cell);
    row.after(detail);
    const query = new URLSearchParams({ agent: session.agent, sessionId: session.sessionId });
    const { entries } = await getJson(`sessions/entries?${query}`);
    list.replaceChildren(
      ...(entries.length === 0
        ? [el('li', noEntryWords(session), 'hint')]
        : entries.map((entry) => entryItem(entry, false))),
    );
  }

  // a session stopped without an entry is a `loopguard run` its breaker, guards or limits ended (qa64)
  function noEntryWords(session) {
    return session.verdict === 'stopped'
      ? "No nudge, stop or spend entry: the run's breaker, guards or limits ended it, as the sentence above says."
      : 'No nudge, stop or spend entry: loopguard did not step in.';
  }

  async function loadSessions() {
    const cursor = sessionCursors[sessionCursors.length - 1];
    const query = new URLSearchParams({ limit: String(SESSION_PAGE_SIZE) });
    if (cursor) query.set('cursor', cursor);
    const verdict = $('verdict-filter').value;
    if (verdict) query.set('verdict', verdict);
    const page = await getJson(`sessions?${query}`);
    const rows = page.sessions.map(sessionRow);
    $('sessions').tBodies[0].replaceChildren(...rows);
    $('sessions').hidden = rows.length === 0;
    $('sessions-empty').hidden = rows.length > 0 || verdict !== '' || sessionCursors.length > 1;
    sessionNextCursor = page.nextCursor;
    $('sessions-next').disabled = sessionNextCursor === null;
    $('sessions-prev').disabled = sessionCursors.length <= 1;
    $('sessions-page-info').textContent = `page ${sessionCursors.length}`;
    $('sessions-pager').hidden = sessionNextCursor === null && sessionCursors.length <= 1;
    await Promise.all(
      page.sessions
        .map((session, i) => [session, rows[i]])
        .filter(([session]) => openSessions.has(sessionKey(session)))
        .map(([session, row]) => renderDetail(row, session)),
    );
  }

  // ---- entries (GET /recoveries and the live events) ----

  // An entry of a session counts in tool calls, as its message does: the detector's step indexes
  // (`step`, `since`, each evidence's `step`) are left out of what the page shows (the API keeps them).
  // A spend entry's reason is the server's words, as its summary says it (`budget reached`, not the
  // stored key `cap`: sessions57).
  /**
   * A spend entry's dollars as every door says them (`$0.504` of a `$0.500` cap, not
   * `0.5039999999999999`); the API keeps the numbers.
   */
  function spendWords(shown) {
    const spent = shown.spent?.costUsd;
    const cap = shown.caps?.maxCostUsd;
    const both = typeof spent === 'number' && typeof cap === 'number';
    if (typeof spent === 'number')
      shown.spent = { ...shown.spent, costUsd: formatUsd(spent, both ? cap : undefined) };
    if (typeof cap === 'number')
      shown.caps = { ...shown.caps, maxCostUsd: formatUsd(cap, both ? spent : undefined) };
  }

  /** An entry's metadata in the user's words: the stored keys, its values as the page says them. */
  function shownMetadata(recovery) {
    const { metadata, spendReason } = recovery;
    // an entry that counts tool calls shows no step index (`"since": 3` beside "since call 2" read as a contradiction, qa53)
    const calls = typeof metadata.toolCall === 'number';
    const { step: _step, since: _since, ...rest } = metadata;
    const shown = calls ? rest : { ...metadata };
    if (typeof spendReason === 'string' && 'reason' in shown) shown.reason = spendReason;
    spendWords(shown);
    // the moment in the page's local time, as the summary above says it, not epoch ms
    if (typeof shown.detectedAt === 'number') shown.detectedAt = when(shown.detectedAt);
    if (calls && Array.isArray(shown.evidence))
      shown.evidence = shown.evidence.map((item) => {
        if (item === null || typeof item !== 'object' || typeof item.call !== 'number') return item;
        const { step: _itemStep, ...rest } = item;
        return rest;
      });
    return shown;
  }

  /**
   * Whose entry it is: a hook session's as `status` names it (`claude session <id>`, a subagent's
   * `codex subagent <id>`, as `status --session` says `(subagent <id>)`), never its entries' key
   * `claude:<id>` (sess70); a task's or a run's by its id.
   */
  function entryOwner({ taskId, metadata }) {
    const { agent, sessionId, parentSessionId } = metadata;
    if (typeof agent === 'string' && typeof sessionId === 'string' && taskId === `${agent}:${sessionId}`)
      return `${agent} ${typeof parentSessionId === 'string' ? 'subagent' : 'session'} ${sessionId}`;
    return taskId ?? '(no session)';
  }

  function entryItem(recovery, fresh) {
    const item = el('li', undefined, fresh ? 'fresh' : '');
    item.dataset.recoveryId = recovery.id;
    item.dataset.action = recovery.action;
    const details = el('details');
    const summary = el('summary');
    const { toolCall, iteration } = recovery.metadata;
    // a run's entry: the iteration whose agent session the call counts, as `status` says it (sessions60)
    const of = typeof iteration === 'number' ? ` of iteration ${iteration}` : '';
    const facts = [
      // a spend entry's reason in the server's words (`budget reached`), not its key (story56)
      // and a loop's kind in words (`same error`, not `same_error`: doors67)
      recovery.loopTypeText ?? recovery.loopType ?? recovery.spendReason ?? null,
      typeof toolCall === 'number' ? `call ${toolCall}${of}` : null,
      recovery.attemptCount != null ? plural(recovery.attemptCount, 'attempt') : null,
      when(recovery.timestamp),
    ].filter((fact) => fact !== null);
    summary.append(
      el('span', words(recovery.action), `badge ${recovery.action}`),
      ' ',
      el('strong', entryOwner(recovery)),
      ` ${facts.join(' · ')}`,
    );
    details.append(
      summary,
      // the agent's message with its kind in the server's words (sess68), as status --session quotes it
      el('pre', recovery.contentText ?? recovery.content),
      el('pre', JSON.stringify(shownMetadata(recovery), null, 2)),
    );
    item.append(details);
    return item;
  }

  function renderRecoveries(freshId) {
    const sorted = [...recoveries.values()].sort(
      (a, b) => b.timestamp - a.timestamp || Number(b.id) - Number(a.id),
    );
    $('recoveries').replaceChildren(...sorted.slice(0, 200).map((r) => entryItem(r, r.id === freshId)));
    $('recoveries-empty').hidden = sorted.length > 0;
    renderChart();
  }

  // ---- the chart ----

  function actionsStored() {
    const actions = new Set([...recoveries.values()].map((r) => r.action));
    const rank = (action) => {
      const i = ACTION_ORDER.indexOf(action);
      return i < 0 ? ACTION_ORDER.length : i;
    };
    return [...actions].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  function colorOf(action, i) {
    return COLORS[action] ?? SPARE_COLORS[i % SPARE_COLORS.length];
  }

  /**
   * Entries per bucket, stacked, and the x range: the bucket is the narrowest that keeps the
   * span within MAX_BUCKETS, and the range shows at least MIN_BUCKETS_SHOWN buckets around the
   * entries (a minute of entries gets ten minutes of axis, months get weeks).
   */
  function chartData(actions) {
    // Buckets are counted in the viewer's local time (its midnight starts a day, its hour an
    // hour), as the axis labels and the sessions' times are: an entry at 00:11 in Kolkata is
    // today's, not yesterday's UTC. `local` and `epoch` turn epoch seconds into local ones and back.
    const offset = (s) => -new Date(s * 1000).getTimezoneOffset() * 60;
    const local = (s) => s + offset(s);
    const epoch = (l) => l - offset(l - offset(l));
    const seconds = [...recoveries.values()].map((r) => local(Math.floor(r.timestamp / 1000)));
    const first = Math.min(...seconds);
    const last = Math.max(...seconds);
    const [bucket, bucketName] =
      BUCKETS.find(([width]) => (last - first) / width <= MAX_BUCKETS) ?? BUCKETS[BUCKETS.length - 1];
    let from = Math.floor(first / bucket) * bucket - bucket;
    let to = Math.floor(last / bucket) * bucket + 2 * bucket;
    const missing = MIN_BUCKETS_SHOWN - (to - from) / bucket;
    if (missing > 0) {
      from -= Math.floor(missing / 2) * bucket;
      to += Math.ceil(missing / 2) * bucket;
    }
    const xs = [];
    for (let x = from; x < to; x += bucket) xs.push(epoch(x + bucket / 2)); // a bar stands over its bucket
    const counts = actions.map(() => xs.map(() => 0));
    for (const r of recoveries.values()) {
      const i = Math.floor((local(Math.floor(r.timestamp / 1000)) - from) / bucket);
      counts[actions.indexOf(r.action)][i]++;
    }
    // Stacked: each series drawn is its own count plus those drawn after it (on top of it).
    // Opaque fills: each series hides the part of the one before it that it stacks on. An empty
    // bucket is null (no bar), not a bar of height 0.
    const stacked = counts.map((_, s) =>
      xs.map((_, i) => counts.slice(s).reduce((n, c) => n + c[i], 0) || null),
    );
    return { xs, counts, stacked, from: epoch(from), to: epoch(to), bucket, bucketName };
  }

  function renderChart() {
    if (typeof uPlot === 'undefined') return;
    const empty = recoveries.size === 0;
    $('chart-empty').hidden = !empty;
    const box = $('chart');
    if (empty) {
      chart?.destroy();
      chart = null;
      chartSeriesKey = '';
      box.replaceChildren();
      return;
    }
    const actions = actionsStored();
    const data = chartData(actions);
    box.dataset.series = actions.join(',');
    box.dataset.bucket = String(data.bucket);
    const key = `${actions.join(',')}|${data.bucketName}`;
    chartRange = [data.from, data.to];
    chartCounts = data.counts;
    if (chart && key === chartSeriesKey) {
      chart.setData([data.xs, ...data.stacked]);
      return;
    }
    chart?.destroy();
    chartSeriesKey = key;
    const width = Math.max(320, box.clientWidth - 10);
    const options = {
      width,
      height: 220,
      scales: {
        x: { time: true, range: () => chartRange },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      axes: [
        {},
        {
          label: `entries per ${data.bucketName}`,
          incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
        },
      ],
      // The x range drawn, in epoch ms, for whoever reads the page (the browser tests).
      hooks: {
        setScale: [
          (u, scale) => {
            if (scale !== 'x') return;
            box.dataset.from = String(Math.round(u.scales.x.min * 1000));
            box.dataset.to = String(Math.round(u.scales.x.max * 1000));
          },
        ],
      },
      series: [
        {},
        ...actions.map((action, i) => ({
          label: words(action),
          stroke: colorOf(action, i),
          fill: colorOf(action, i),
          paths: uPlot.paths.bars({ size: [0.8, 60] }),
          points: { show: false },
          value: (_u, _v, s, idx) => (idx == null ? '–' : String(chartCounts[s - 1]?.[idx] ?? 0)),
        })),
      ],
    };
    chart = new uPlot(options, [data.xs, ...data.stacked], box);
  }

  // ---- live updates ----

  function scheduleStatus() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      refreshAll();
    }, 250);
  }

  function refreshAll() {
    loadStatus().catch(showError);
    loadSessions().catch(showError);
    loadRecoveries().catch(showError);
  }

  function showError(error) {
    $('live').textContent = `error: ${error.message}`;
  }

  function connect() {
    const events = new EventSource('events');
    events.onopen = () => {
      streamState = 'connected';
      if (failing.size === 0) $('live').textContent = streamState;
    };
    events.onerror = () => {
      streamState = 'reconnecting…';
      if (failing.size === 0) $('live').textContent = streamState;
    };
    events.addEventListener('recoveryApplied', (event) => {
      const recovery = JSON.parse(event.data);
      recoveries.set(recovery.id, recovery);
      renderRecoveries(recovery.id);
      scheduleStatus();
    });
    for (const name of ['attemptsRecorded', 'loopDetected', 'guardTriggered', 'breakerStateChanged'])
      events.addEventListener(name, scheduleStatus);
  }

  $('next-page').addEventListener('click', () => {
    if (taskNextCursor === null) return;
    taskCursors.push(taskNextCursor);
    loadStatus().catch(showError);
  });
  $('prev-page').addEventListener('click', () => {
    if (taskCursors.length > 1) taskCursors = taskCursors.slice(0, -1);
    loadStatus().catch(showError);
  });
  $('sessions-next').addEventListener('click', () => {
    if (sessionNextCursor === null) return;
    sessionCursors.push(sessionNextCursor);
    loadSessions().catch(showError);
  });
  $('sessions-prev').addEventListener('click', () => {
    if (sessionCursors.length > 1) sessionCursors = sessionCursors.slice(0, -1);
    loadSessions().catch(showError);
  });
  $('verdict-filter').addEventListener('change', () => {
    sessionCursors = [undefined];
    loadSessions().catch(showError);
  });

  // Also reloaded after live events, so that an event missed while reconnecting still shows up.
  async function loadRecoveries() {
    const page = await getJson('recoveries?limit=200');
    const before = recoveries.size;
    for (const recovery of page.recoveries) recoveries.set(recovery.id, recovery);
    if (recoveries.size !== before || before === 0) renderRecoveries(null);
  }

  async function start() {
    connect();
    await loadRecoveries();
    await Promise.all([loadStatus(), loadSessions()]);
    setInterval(() => {
      loadStatus().catch(showError);
      loadSessions().catch(showError);
    }, 10000);
    document.body.dataset.ready = 'true';
  }
  start().catch(showError);
})();
