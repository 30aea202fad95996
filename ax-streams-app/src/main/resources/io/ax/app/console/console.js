// The ax web console: plain JavaScript over the scheduler's JSON API, served by the same server.
// Everything shown is put into the page as text (textContent, never innerHTML) and every handler is attached with
// addEventListener: task ids, payloads and error messages are user input. The server's Content-Security-Policy
// forbids inline script besides. The bearer token lives in this tab only (memory and sessionStorage).
'use strict';

(function () {
  const TOKEN_KEY = 'ax.console.token';
  let token = sessionStorage.getItem(TOKEN_KEY) || '';
  let current = null; // the task shown in the detail view

  // ---- DOM helpers: text only ----

  function $(id) {
    return document.getElementById(id);
  }

  /** An element with attributes (never on* handlers) and children (nodes, or strings put in as text). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, String(value));
      }
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }

  function clear(node, ...children) {
    node.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined));
  }

  function text(value) {
    return value === null || value === undefined || value === '' ? '–' : String(value);
  }

  function stateBadge(state) {
    return el('span', { class: 'state state-' + String(state).replace(/[^A-Z_]/g, '') }, text(state));
  }

  function button(label, onClick, attrs) {
    const b = el('button', Object.assign({ type: 'button' }, attrs || {}), label);
    b.addEventListener('click', onClick);
    return b;
  }

  function taskLink(taskId) {
    return button(taskId, () => openTask(taskId), { class: 'link task-link' });
  }

  function fields(pairs) {
    const dl = el('dl', { class: 'fields' });
    for (const [name, value] of pairs) {
      dl.append(el('dt', {}, name), el('dd', {}, value instanceof Node ? value : text(value)));
    }
    return dl;
  }

  function table(headers, rows, attrs) {
    return el('table', attrs || {}, el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
      el('tbody', {}, rows.map(cells => el('tr', {}, cells.map(c => el('td', {}, c instanceof Node ? c : text(c)))))));
  }

  function say(message, isError) {
    const p = $('message');
    p.textContent = message;
    p.className = 'message' + (isError ? ' error' : '');
    p.hidden = false;
  }

  function unsay() {
    $('message').hidden = true;
  }

  // ---- the API ----

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  /** Calls the API (paths relative to the page, so a proxy prefix keeps working); the JSON answer, or an ApiError. */
  async function api(method, path, body, acceptStatuses) {
    const headers = { 'Accept': 'application/json' };
    if (token) {
      headers['Authorization'] = 'Bearer ' + token;
    }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
    }
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, 'the scheduler does not answer: ' + e.message);
    }
    let json = null;
    try {
      json = await response.json();
    } catch (e) {
      json = null;
    }
    if (response.ok || (acceptStatuses || []).includes(response.status)) {
      return json;
    }
    const error = json && typeof json.error === 'string' ? json.error : response.statusText;
    throw new ApiError(response.status, response.status + ': ' + error);
  }

  function seg(value) {
    return encodeURIComponent(value);
  }

  /** Shows an API error; a 401 on a read means this instance wants the token for reads too. */
  function fail(e) {
    if (e instanceof ApiError && e.status === 401) {
      say(e.message + ' — enter the bearer token (ax.http.token) above', true);
      $('token').focus();
    } else {
      say(e.message, true);
    }
  }

  // ---- token ----

  function showTokenStatus() {
    $('token-status').textContent = token ? 'token set (this tab only)' : 'no token: reads only';
  }

  function useToken(value) {
    token = value;
    if (token) {
      sessionStorage.setItem(TOKEN_KEY, token);
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
    }
    $('token').value = '';
    showTokenStatus();
  }

  // ---- views ----

  const views = ['task', 'tasks', 'dead', 'workers', 'health'];

  function show(view) {
    for (const v of views) {
      $('view-' + v).hidden = v !== view;
      $('tab-' + v).classList.toggle('active', v === view);
    }
    unsay();
    if (view === 'tasks') {
      loadStats();
    } else if (view === 'dead') {
      loadDeadLetters(null);
    } else if (view === 'workers') {
      loadWorkers();
    } else if (view === 'health') {
      loadHealth();
    }
  }

  // ---- a task ----

  async function find(id) {
    unsay();
    try {
      const task = await api('GET', 'tasks/' + seg(id)).catch(async e => {
        if (e.status !== 404 && e.status !== 400) {
          throw e;
        }
        return api('GET', 'executions/' + seg(id)).catch(e2 => {
          throw e2.status === 404 || e2.status === 400 ? new ApiError(404, 'no task ' + id + ', and no task with ' + id
            + ' as an execution in its history') : e2;
        });
      });
      renderTask(task);
    } catch (e) {
      clear($('task-detail'));
      fail(e);
    }
  }

  function openTask(taskId) {
    show('task');
    $('search').value = taskId;
    find(taskId);
  }

  function trigger(t) {
    if (!t) {
      return '–';
    }
    if (t.at) {
      return 'at ' + t.at;
    }
    if (t.delayMs !== undefined) {
      return 'after ' + t.delayMs + ' ms';
    }
    if (t.everyMs !== undefined) {
      return 'every ' + t.everyMs + ' ms from ' + text(t.startAt);
    }
    if (t.cron) {
      return 'cron ' + t.cron + ' (' + text(t.zone) + ')';
    }
    return JSON.stringify(t);
  }

  /** A duration in ms; null is the scheduler's default. */
  function ms(value) {
    return value === null || value === undefined ? 'default' : value + ' ms';
  }

  function attemptKind(a) {
    return a.timedOut ? 'timed out' : a.retryable ? 'retryable' : 'fatal';
  }

  /** States a timeline marks as a failure. */
  const FAILING = ['FAILED', 'RETRY_WAITING', 'TIMED_OUT'];

  /** One state change of the task's history: when, from and to, which execution and attempt, the worker, why. */
  function change(h) {
    return {
      at: h.at, fail: FAILING.includes(h.to),
      what: [(h.from ? h.from + ' → ' : '') + h.to,
        h.executionId ? ' · execution ' + h.executionId + (h.attempt !== null && h.attempt !== undefined ? ' attempt ' + h.attempt : '') : '',
        h.workerId ? ' · worker ' + h.workerId : '',
        h.reason && h.reason !== 'worker ' + h.workerId ? ': ' + h.reason : ''].join('') // "worker W" alone: said once
    };
  }

  /**
   * The task's timeline, in time order: its history of state changes (the last ax.history.max.events, kept by the
   * scheduler) when the API gives one, else what the stored task tells; then what is ahead (a retry, the next due time).
   */
  function timeline(task) {
    const events = [];
    const x = task.execution;
    if (Array.isArray(task.history)) {
      task.history.forEach(h => events.push(change(h)));
    } else {
      events.push({ at: task.acceptedAt, what: 'accepted (job type ' + text(task.jobType) + ')' });
      for (const a of task.attempts || []) {
        events.push({ at: a.at, what: 'attempt ' + a.attempt + ' failed, ' + attemptKind(a) + ': ' + text(a.message), fail: true });
      }
      if (x && x.firedAt) {
        events.push({ at: x.firedAt, what: 'attempt ' + x.attempt + ' fired (execution ' + x.executionId + ', due ' + text(x.dueAt) + ')' });
      }
      if (task.finishedAt) {
        events.push({ at: task.finishedAt, what: 'finished: ' + task.state, fail: task.state === 'FAILED' });
      }
    }
    if (x && !x.fromHistory && x.lastHeartbeatAt && x.lastHeartbeatAt !== x.firedAt && isInFlight(x)) {
      events.push({ at: x.lastHeartbeatAt, what: 'last heartbeat' + (x.progress !== null && x.progress !== undefined ? ', progress ' + x.progress : '') });
    }
    if (x && !x.fromHistory && x.state === 'RETRY_WAITING' && x.retryAt) {
      events.push({ at: x.retryAt, what: 'attempt ' + (x.attempt + 1) + ' due (retry)', future: true });
    }
    if (task.nextDueAt) {
      events.push({ at: task.nextDueAt, what: 'next due', future: true });
    }
    // By instant (ISO-8601 text does not sort as time: "…03Z" vs "…03.120Z"); a stable sort, so changes at the same
    // instant keep the order the scheduler made them in.
    events.sort((a, b) => (Date.parse(a.at) || 0) - (Date.parse(b.at) || 0));
    return el('ol', { class: 'timeline', id: 'timeline' }, events.map(e =>
      el('li', { class: e.fail ? 'fail' : e.future ? 'future' : null }, el('code', {}, text(e.at)), ' ', e.what)));
  }

  function isInFlight(x) {
    return x.state === 'TRIGGERED' || x.state === 'RUNNING';
  }

  function renderTask(task) {
    current = task;
    // A link to this task: the console opened at #task/<id> shows it (the id never reaches the page as markup).
    history.replaceState(null, '', '#task/' + encodeURIComponent(task.taskId));
    const x = task.execution;
    const payload = task.payloadBase64 !== undefined
      ? el('pre', { id: 'payload' }, 'base64: ' + task.payloadBase64)
      : el('pre', { id: 'payload' }, task.payload === null || task.payload === undefined ? '(none)' : JSON.stringify(task.payload, null, 2));
    const reason = el('input', { id: 'action-reason', placeholder: 'reason (optional)', size: 30 });
    const actions = el('div', { class: 'actions' }, reason,
      button('Trigger now', () => act('trigger', task.taskId, reason.value, task.state), { id: 'action-trigger' }),
      button('Cancel', () => act('cancel', task.taskId, reason.value, task.state), { id: 'action-cancel', class: 'danger' }),
      button('Replay', () => act('replay', task.taskId, reason.value, task.state), { id: 'action-replay' }),
      button('Reload', () => find(task.taskId), { id: 'action-reload' }));
    clear($('task-detail'), el('div', { class: 'card', id: 'task' },
      el('h2', {}, el('span', { id: 'task-id' }, task.taskId), ' ', el('span', { id: 'task-state' }, stateBadge(task.state))),
      el('p', { class: 'note' }, 'Read from the scheduler\'s stores ' + new Date().toISOString() + ': the task, '
        + (task.latest === false ? 'execution ' + (x ? x.executionId : '') + ' as the task\'s history tells it (not its latest)'
          : 'its latest execution and that execution\'s failed attempts')
        + ', and a timeline of its last state changes (ax.history.max.events); "ax tail --task" follows every change on ax.state.'),
      actions,
      el('div', { class: 'columns' },
        el('div', {}, el('h3', {}, 'Task'), fields([
          ['state', stateBadge(task.state)], ['job type', task.jobType], ['owner', task.owner], ['priority', task.priority],
          ['trigger', trigger(task.trigger)], ['timeout', ms(task.timeoutMs)],
          ['retry', task.retry ? 'max ' + text(task.retry.maxRetries === null ? 'default' : task.retry.maxRetries)
            + ', backoff ' + ms(task.retry.backoffMs) : null],
          ['accepted', task.acceptedAt], ['next due', task.nextDueAt], ['occurrences', task.occurrences],
          ['finished', task.finishedAt], ['purge at', task.purgeAt], ['partition', task.partition], ['instance', task.instance]])),
        el('div', {}, el('h3', { id: 'execution-title' }, x && x.fromHistory ? 'Execution (from the history, not the latest)'
          : 'Current execution'), !x ? el('p', { class: 'muted' }, 'none yet (not fired)') : x.fromHistory ? fields([
          ['execution id', el('code', { id: 'execution-id' }, x.executionId)], ['attempt', x.attempt], ['state', stateBadge(x.state)],
          ['due', x.dueAt], ['fired', x.firedAt], ['worker', x.workerId], ['last change', x.lastChangeAt],
          ['complete', x.complete ? 'yes' : 'no: its first changes have left the history']]) : fields([
          ['execution id', el('code', { id: 'execution-id' }, x.executionId)], ['attempt', x.attempt], ['state', stateBadge(x.state)],
          ['due', x.dueAt], ['fired', x.firedAt], ['worker', x.workerId], ['heartbeat', x.lastHeartbeatAt],
          ['progress', x.progress], ['last error', el('span', { id: 'last-error' }, text(x.lastError))], ['retry at', x.retryAt],
          ['timeout at', x.timeoutAt]])),
        el('div', {}, el('h3', {}, 'Timeline'), timeline(task))),
      el('h3', {}, 'Payload'), payload,
      el('h3', {}, 'Failed attempts'),
      (task.attempts || []).length === 0 ? el('p', { class: 'muted' }, 'none')
        : table(['attempt', 'at', 'kind', 'error'], task.attempts.map(a => [a.attempt, a.at, attemptKind(a), a.message]), { id: 'attempts' })));
  }

  // ---- actions ----

  /** POSTs an action; {@code before} is the task's state as shown, followed until the scheduler changed it. */
  async function act(action, taskId, reason, before) {
    if (!token) {
      say(action + ' needs the bearer token: enter it above (Use), then ' + action + ' again', true);
      $('token').focus();
      return;
    }
    try {
      const answer = await api('POST', 'tasks/' + seg(taskId) + '/' + action, reason ? { reason } : undefined);
      say(action + ' of ' + answer.taskId + ' accepted: ' + answer.topic + '-' + answer.partition + '@' + answer.offset
        + '; the scheduler\'s decision follows on the task', false);
      followState(taskId, before);
    } catch (e) {
      fail(e);
    }
  }

  /** After an action, reads the task again (1 s apart, 20 times at most) until its state changed, and shows it. */
  function followState(taskId, before) {
    let left = 20;
    const poll = async () => {
      left--;
      try {
        const task = await api('GET', 'tasks/' + seg(taskId));
        const shown = current && current.taskId === taskId;
        if (shown && !$('view-task').hidden) {
          renderTask(task);
        }
        if (task.state !== before || left <= 0) {
          if (!$('view-dead').hidden) {
            loadDeadLetters(null);
          }
          return;
        }
      } catch (e) {
        if (left <= 0) {
          return;
        }
      }
      setTimeout(poll, 1000);
    };
    setTimeout(poll, 300);
  }

  // ---- lists ----

  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== null && v !== undefined && v !== '') {
        q.set(k, v);
      }
    }
    return q.toString();
  }

  async function loadStats() {
    try {
      const stats = await api('GET', 'stats');
      const countLink = (label, onClick) => button(label, onClick, { class: 'link' });
      clear($('stats'), el('p', {}, 'total ', el('strong', { id: 'stats-total' }, String(stats.total))),
        el('div', { class: 'columns' },
          table(['state', 'tasks'], Object.entries(stats.byState).map(([s, n]) =>
            [countLink(s, () => list({ state: s })), String(n)]), { id: 'stats-by-state' }),
          table(['job type', 'tasks'], Object.entries(stats.byJobType).map(([j, n]) =>
            [countLink(j, () => list({ jobType: j })), String(n)]), { id: 'stats-by-job-type' })));
      clear($('job-types'), Object.keys(stats.byJobType).map(j => el('option', { value: j })));
    } catch (e) {
      clear($('stats'));
      fail(e);
    }
  }

  function list(filter) {
    $('list-state').value = filter.state || '';
    $('list-job-type').value = filter.jobType || '';
    loadList(null);
  }

  async function loadList(cursor) {
    unsay();
    const params = { state: $('list-state').value, jobType: $('list-job-type').value.trim(), limit: $('list-limit').value, cursor };
    try {
      const page = await api('GET', 'tasks?' + query(params));
      const rows = page.tasks.map(t => [taskLink(t.taskId), stateBadge(t.state), t.jobType, t.owner, t.priority,
        t.nextDueAt, t.execution ? t.execution.attempt : null, t.execution ? t.execution.lastError : null]);
      clear($('list'), page.tasks.length === 0 ? el('p', { class: 'muted' }, 'no task on this page')
        : table(['task', 'state', 'job type', 'owner', 'priority', 'next due', 'attempt', 'last error'], rows, { id: 'list-table' }),
        page.nextCursor ? button('Next page', () => loadList(page.nextCursor), { id: 'list-next' }) : el('p', { class: 'muted' }, 'end of the list'));
    } catch (e) {
      clear($('list'));
      fail(e);
    }
  }

  async function loadDeadLetters(cursor) {
    try {
      const page = await api('GET', 'dead-letters?' + query({ limit: 50, cursor }));
      const rows = page.tasks.map(t => {
        const last = (t.attempts || [])[(t.attempts || []).length - 1];
        return [taskLink(t.taskId), t.jobType, t.owner, t.execution ? el('code', {}, t.execution.executionId) : null,
          t.finishedAt, (t.attempts || []).length, last ? last.message : (t.execution ? t.execution.lastError : null),
          button('Replay', () => act('replay', t.taskId, 'replayed from the console', t.state), { class: 'replay', 'data-task': t.taskId })];
      });
      clear($('dead'), page.tasks.length === 0 ? el('p', { class: 'muted', id: 'dead-empty' }, 'no dead letter')
        : table(['task', 'job type', 'owner', 'execution', 'failed at', 'attempts', 'last error', ''], rows, { id: 'dead-table' }),
        page.nextCursor ? button('Next page', () => loadDeadLetters(page.nextCursor), { id: 'dead-next' }) : null);
    } catch (e) {
      clear($('dead'));
      fail(e);
    }
  }

  async function loadWorkers() {
    try {
      const w = await api('GET', 'workers');
      const rows = (w.workers || []).map(x => [el('code', {}, x.workerId), stateBadge(x.state), x.host, x.version,
        x.lastSeenAt || x.lastReportAt,
        (x.lanes || []).map(l => l.jobType + ' ' + l.running + '/' + l.limit + (l.waiting ? ' +' + l.waiting : '')).join(', '),
        x.inFlightCount || 0,
        el('span', { class: 'executions' }, (x.inFlight || []).map(e => e.taskId ? taskLink(e.taskId) : el('code', {}, e.executionId)))]);
      clear($('workers'),
        el('p', { class: 'muted', id: 'workers-counts' }, (w.alive || 0) + ' alive, ' + (w.dead || 0) + ' dead, '
          + (w.reporting || 0) + ' known from their reports only' + (w.refusedCount ? ', ' + w.refusedCount + ' announcements refused' : '')),
        rows.length === 0 ? el('p', { class: 'muted', id: 'workers-empty' }, 'no worker')
          : table(['worker', 'state', 'host', 'version', 'last heard', 'lanes (running/limit +waiting)', 'in flight', 'executions'],
            rows, { id: 'workers-table' }),
        (w.refused || []).length === 0 ? null : el('h3', {}, 'Refused announcements'),
        (w.refused || []).length === 0 ? null : table(['key', 'partition', 'offset', 'reason'],
          w.refused.map(r => [r.key, r.partition, r.offset, r.reason]), { id: 'workers-refused' }));
    } catch (e) {
      clear($('workers'));
      fail(e);
    }
  }

  /** The largest lag of an instance's input partitions, or null when none is known. */
  function maxLag(lags) {
    const known = (lags || []).map(l => l.lag).filter(l => l >= 0);
    return known.length === 0 ? null : Math.max(...known);
  }

  async function loadHealth() {
    try {
      // 503 still carries the instance's state: shown, not treated as an error.
      const h = await api('GET', 'health', undefined, [503]);
      const c = h.cluster || {};
      const instances = (c.instances || []).map(i => [i.instance, i.reachable ? 'yes' : 'NO', i.reachable ? stateBadge(i.state) : '–',
        i.partitions ? (i.partitions.active || []).join(', ') : '–', i.partitions ? (i.partitions.standby || []).join(', ') : '–',
        i.reachable ? maxLag(i.inputLag) : null, i.error]);
      const partitions = (c.partitions || []).map(p => [p.partition, p.active || 'none (unassigned)', (p.standby || []).join(', ')]);
      clear($('health'),
        el('h3', {}, 'Instances'),
        c.error ? el('p', { class: 'message error' }, c.error)
          : table(['instance', 'reachable', 'stream state', 'active partitions', 'standby partitions', 'max input lag', 'error'],
            instances, { id: 'health-instances' }),
        el('h3', {}, 'Partitions' + (c.partitionCount ? ' (' + c.partitionCount + ')' : '')),
        table(['partition', 'active on', 'standby on'], partitions, { id: 'health-partitions' }),
        el('h3', {}, 'This instance'),
        fields([['instance', h.instance], ['stream state', stateBadge(h.state)],
          ['active partitions', (h.partitions.active || []).join(', ')],
          ['standby partitions', (h.partitions.standby || []).join(', ')]]),
        el('h3', {}, 'Input lag (records behind, per partition read here)'),
        table(['topic', 'partition', 'lag'], (h.inputLag || []).map(l => [l.topic, l.partition, l.lag < 0 ? 'unknown' : l.lag]), { id: 'lag' }));
    } catch (e) {
      clear($('health'));
      fail(e);
    }
  }

  // ---- wiring ----

  document.addEventListener('DOMContentLoaded', () => {
    for (const v of views) {
      $('tab-' + v).addEventListener('click', () => show(v));
    }
    $('token-form').addEventListener('submit', e => {
      e.preventDefault();
      useToken($('token').value.trim());
      unsay();
    });
    $('token-forget').addEventListener('click', () => useToken(''));
    $('search-form').addEventListener('submit', e => {
      e.preventDefault();
      find($('search').value.trim());
    });
    $('list-form').addEventListener('submit', e => {
      e.preventDefault();
      loadList(null);
    });
    window.addEventListener('hashchange', openLinkedTask);
    showTokenStatus();
    show('task');
    openLinkedTask();
  });

  /** A #task/<id> link (typed, followed or pasted) opens that task. */
  function openLinkedTask() {
    if (!location.hash.startsWith('#task/')) {
      return;
    }
    let id = null;
    try {
      id = decodeURIComponent(location.hash.substring('#task/'.length));
    } catch (e) {
      id = null;
    }
    if (id && !(current && current.taskId === id && !$('view-task').hidden)) {
      openTask(id);
    }
  }
})();
