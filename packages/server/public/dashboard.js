// The loopguard dashboard. Every value from the server is written with textContent (never as
// HTML), so task ids and recovery texts cannot inject markup or script.

(() => {
  const ACTIONS = ['force_next', 'unblock_authority', 'escalate'];
  const COLORS = { force_next: '#2563eb', unblock_authority: '#d97706', escalate: '#dc2626' };
  const PAGE_SIZE = 100;
  const recoveries = new Map(); // id -> recovery view
  let cursors = [undefined]; // cursor of each page visited; the last is the current page
  let nextCursor = null;
  let chart = null;
  let refreshTimer = null;

  const $ = (id) => document.getElementById(id);
  const el = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  };
  const time = (ms) => (ms == null ? '–' : new Date(ms).toLocaleTimeString());

  async function getJson(path) {
    const response = await fetch(path, { headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }

  function isLooping(task) {
    return task.lastRecovery !== null;
  }

  async function loadStatus() {
    const cursor = cursors[cursors.length - 1];
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (cursor) query.set('cursor', cursor);
    const status = await getJson(`status?${query}`);
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
      $('run').replaceChildren(
        `${run.runId} `,
        el('span', state, `badge run-${state.replace(/[^a-z_]/g, '')}`),
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
      if (task.lastRecovery) last.append(el('span', task.lastRecovery, `badge ${task.lastRecovery}`));
      row.append(last);
      return row;
    });
    $('tasks').tBodies[0].replaceChildren(...rows);
    nextCursor = status.page.nextCursor;
    $('next-page').disabled = nextCursor === null;
    $('prev-page').disabled = cursors.length <= 1;
    $('page-info').textContent = `page ${cursors.length}`;
  }

  function recoveryItem(recovery, fresh) {
    const item = el('li', undefined, fresh ? 'fresh' : '');
    item.dataset.recoveryId = recovery.id;
    const details = el('details');
    const summary = el('summary');
    summary.append(
      el('span', recovery.action, `badge ${recovery.action}`),
      ' ',
      el('strong', recovery.taskId ?? '(no task)'),
      ` ${recovery.loopType ?? ''} · ${recovery.attemptCount ?? '?'} attempts · ${time(recovery.timestamp)}`,
    );
    details.append(
      summary,
      el('pre', recovery.content),
      el('pre', JSON.stringify(recovery.metadata, null, 2)),
    );
    item.append(details);
    return item;
  }

  function renderRecoveries(freshId) {
    const sorted = [...recoveries.values()].sort(
      (a, b) => b.timestamp - a.timestamp || Number(b.id) - Number(a.id),
    );
    $('recoveries').replaceChildren(...sorted.slice(0, 200).map((r) => recoveryItem(r, r.id === freshId)));
    renderChart();
  }

  function chartData() {
    const buckets = new Map();
    for (const r of recoveries.values()) {
      const minute = Math.floor(r.timestamp / 60000) * 60;
      const counts = buckets.get(minute) ?? { force_next: 0, unblock_authority: 0, escalate: 0 };
      if (r.action in counts) counts[r.action]++;
      buckets.set(minute, counts);
    }
    const xs = [...buckets.keys()].sort((a, b) => a - b);
    return [xs, ...ACTIONS.map((action) => xs.map((x) => buckets.get(x)[action]))];
  }

  function renderChart() {
    if (typeof uPlot === 'undefined') return;
    const data = chartData();
    if (chart) {
      chart.setData(data);
      return;
    }
    const width = Math.max(320, $('chart').clientWidth - 10);
    chart = new uPlot(
      {
        width,
        height: 220,
        scales: { x: { time: true } },
        axes: [{}, { label: 'recoveries / min' }],
        series: [
          {},
          ...ACTIONS.map((action) => ({
            label: action,
            stroke: COLORS[action],
            fill: `${COLORS[action]}22`,
            paths: uPlot.paths.bars({ size: [0.6, 40] }),
            points: { show: false },
          })),
        ],
      },
      data,
      $('chart'),
    );
  }

  function scheduleStatus() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      loadStatus().catch(showError);
      loadRecoveries().catch(showError);
    }, 250);
  }

  function showError(error) {
    $('live').textContent = `error: ${error.message}`;
  }

  function connect() {
    const events = new EventSource('events');
    events.onopen = () => {
      $('live').textContent = 'connected';
    };
    events.onerror = () => {
      $('live').textContent = 'reconnecting…';
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
    if (nextCursor === null) return;
    cursors.push(nextCursor);
    loadStatus().catch(showError);
  });
  $('prev-page').addEventListener('click', () => {
    if (cursors.length > 1) cursors = cursors.slice(0, -1);
    loadStatus().catch(showError);
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
    await loadStatus();
    setInterval(() => loadStatus().catch(showError), 10000);
    document.body.dataset.ready = 'true';
  }
  start().catch(showError);
})();
