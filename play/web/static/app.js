// The page of `python -m play.web`: plain JavaScript over the JSON API (docs/play.md).
// It draws the table from the view the server gives (what the human's seat may see), makes
// only the legal actions clickable, and shows the bots' moves one by one.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
};
const rgb = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const params = new URLSearchParams(location.search);

let META = null;
let current = null; // the game's latest view
let busy = false;   // a request or the bots' moves are being shown

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.data = data;
    throw error;
  }
  return data;
}

// ------------------------------------------------------------------------ drawing

function cardNode(card, cls) {
  const node = el("div", "card" + (cls ? " " + cls : ""));
  node.style.color = rgb(card.color);
  node.append(el("span", "rank", card.rank), el("span", "suit", card.suit));
  node.dataset.card = card.name;
  node.title = card.name;
  return node;
}

function backs(n) {
  const box = el("div", "backs");
  for (let i = 0; i < Math.min(n, 13); i++) box.append(el("div", "card back"));
  return box;
}

// legal: {name (lower case): action} of the human's clickable actions, or null.
function drawCardTable(table, legal, onAction) {
  const root = el("div", "cardtable");
  root.append(el("div", "title", table.title));
  const lines = el("div", "lines");
  for (const line of table.lines) lines.append(el("div", "", line));
  root.append(lines);
  const grid = el("div", "grid");
  const places = ["bottom", "left", "top", "right"];
  const n = table.seats.length;
  const trick = el("div", "trick");
  table.seats.forEach((seat, index) => {
    const place = places[(index - table.bottom + n) % n];
    const box = el("div", `seat ${place}` + (seat.to_act ? " to-act" : ""));
    box.dataset.seat = seat.name;
    const name = el("div", "name", seat.name);
    name.style.color = rgb(seat.color.map((v) => Math.min(255, v + 90)));
    box.append(name, el("div", "notes", seat.notes.join(" · ")));
    const hand = el("div", "hand");
    if (Array.isArray(seat.hand)) {
      for (const card of seat.hand) {
        const action = legal && legal[card.name.toLowerCase()];
        const node = cardNode(card, action ? "legal" : "");
        if (action) node.addEventListener("click", () => onAction(action.name));
        hand.append(node);
      }
    } else {
      hand.append(backs(seat.hand), el("span", "count", ` ${seat.hand} card${seat.hand === 1 ? "" : "s"}`));
    }
    box.append(hand);
    grid.append(box);
    if (seat.trick_card) {
      const slot = el("div", `t-${place}`);
      slot.append(cardNode(seat.trick_card, seat.trick_mark === "lead" ? "lead" : ""));
      trick.append(slot);
    }
  });
  const center = el("div", "center");
  for (const line of table.center_lines) center.append(el("div", "", line));
  trick.append(center);
  if (table.corner_card) {
    const corner = el("div", "corner");
    corner.append(cardNode(table.corner_card), el("div", "", table.corner_label));
    trick.append(corner);
  }
  grid.append(trick);
  root.append(grid, el("div", "footer", table.footer));
  return root;
}

const COLUMNS = "abcdefghij";

// legal: as for drawCardTable; setup squares are named "a1", moves "a1-a2".
function drawBoard(table, legal, onAction) {
  const root = el("div", "boardtable");
  const board = el("div", "board");
  const flipped = table.bottom === 1;
  const moves = {}; // from square -> [to squares]
  const places = {}; // setup squares
  for (const action of Object.values(legal || {})) {
    const parts = action.name.split("-");
    if (parts.length === 2) (moves[parts[0]] = moves[parts[0]] || []).push(parts[1]);
    else places[parts[0]] = action;
  }
  const marks = {};
  const mark = (square, cls) => { (marks[square] = marks[square] || []).push(cls); };
  table.last_moves.forEach((move, who) => {
    if (move) { mark(move[0], `from${who}`); mark(move[1], `to${who}`); }
  });
  if (table.last_strike) mark(table.last_strike, "strike");
  const lakes = new Set(table.lakes);
  let selected = null;
  const cells = {};
  for (let r = 0; r < 10; r++) {
    const row = flipped ? r + 1 : 10 - r;
    board.append(el("div", "coord", String(row)));
    for (let c = 0; c < 10; c++) {
      const square = COLUMNS[flipped ? 9 - c : c] + row;
      const cell = el("div", "sq" + (lakes.has(square) ? " lake" : ""));
      cell.dataset.square = square;
      for (const cls of marks[square] || []) cell.classList.add(cls);
      const piece = table.pieces[square];
      if (piece) {
        const node = el("div", `piece ${piece.owner === 0 ? "gold" : "silver"}`, piece.rank);
        if (piece.public) node.append(el("span", "mark pub", "*"));
        if (piece.moved) node.append(el("span", "mark moved", "+"));
        cell.append(node);
      }
      if (places[square]) {
        cell.classList.add("legal");
        cell.addEventListener("click", () => onAction(places[square].name));
      } else if (moves[square]) {
        cell.classList.add("legal");
        cell.addEventListener("click", () => {
          for (const node of Object.values(cells)) node.classList.remove("selected", "target");
          if (selected === square) { selected = null; return; }
          selected = square;
          cell.classList.add("selected");
          for (const to of moves[square]) cells[to].classList.add("target");
        });
      }
      cells[square] = cell;
      board.append(cell);
    }
  }
  for (const [square, cell] of Object.entries(cells)) {
    cell.addEventListener("click", () => {
      if (selected && selected !== square && moves[selected] && moves[selected].includes(square)) {
        onAction(`${selected}-${square}`);
      }
    });
  }
  board.append(el("div", "coord", ""));
  for (let c = 0; c < 10; c++) board.append(el("div", "coord", COLUMNS[flipped ? 9 - c : c]));
  const side = el("div", "side");
  side.append(el("div", "title", table.title), el("div", "", `view: ${table.viewer}`));
  for (const line of table.panel) side.append(el("div", "", line));
  root.append(board, side);
  return root;
}

function drawTable(target, table, legal, onAction) {
  target.replaceChildren(
    table.kind === "board" ? drawBoard(table, legal, onAction) : drawCardTable(table, legal, onAction),
  );
}

// -------------------------------------------------------------------------- setup

function fillSeats() {
  const game = META.games[$("game").value];
  $("seat").replaceChildren(...game.seats.map((s) => new Option(s, s)));
  fillOpponents();
  const box = $("keywords");
  box.replaceChildren();
  for (const [name, value] of Object.entries(game.keywords)) {
    const label = el("label", "", name);
    let input;
    if (game.choices[name]) {
      input = el("select");
      for (const choice of game.choices[name]) input.append(new Option(choice, choice, false, choice === value));
    } else {
      input = el("input");
      input.type = typeof value === "number" ? "number" : "text";
      input.value = value;
    }
    input.dataset.keyword = name;
    input.dataset.kind = typeof value;
    input.id = `kw-${name}`;
    label.append(input);
    box.append(label);
  }
}

function fillOpponents() {
  const game = META.games[$("game").value];
  const seat = $("seat").value;
  const box = $("opponents");
  box.replaceChildren();
  for (const other of game.seats) {
    if (other === seat) continue;
    const label = el("label", "", `${other}`);
    const input = el("input");
    input.value = "heuristic";
    input.setAttribute("list", "spec-list");
    input.dataset.opponent = other;
    input.id = `opp-${other}`;
    label.append(input);
    box.append(label);
  }
}

async function startGame(event) {
  event.preventDefault();
  if (busy) return;
  const keywords = {};
  for (const input of document.querySelectorAll("[data-keyword]")) {
    keywords[input.dataset.keyword] = input.dataset.kind === "number" ? Number(input.value) : input.value;
  }
  const opponents = [...document.querySelectorAll("[data-opponent]")].map((input) => input.value.trim());
  const body = { game: $("game").value, seat: $("seat").value, keywords, opponents };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  $("message").textContent = "";
  busy = true;
  try {
    const view = await api("POST", "/api/games", body);
    $("game-area").hidden = false;
    $("summary").hidden = true;
    $("log").replaceChildren();
    await show(view);
  } catch (error) {
    $("game-area").hidden = false;
    $("message").textContent = error.message;
  } finally {
    busy = false;
  }
}

// ---------------------------------------------------------------------- playing

function delay() {
  return params.has("delay") ? Number(params.get("delay")) : Number($("delay").value);
}

function logMove(move, mine) {
  const item = el("li", mine ? "mine" : "");
  item.append(el("span", "", move.text + (move.count > 1 ? ` (×${move.count})` : "")));
  for (const line of move.news) item.append(el("div", "news", line));
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

async function show(view) {
  // the moves since the last view, one by one, each with the table after it
  for (const move of view.moves) {
    logMove(move, !move.bot);
    if (move.bot && delay() > 0) {
      $("status").textContent = move.text;
      drawTable($("table"), move.table, null, null);
      $("table").dataset.state = "moving";
      await sleep(delay());
    }
  }
  current = view;
  render();
}

function legalByName(view) {
  const legal = {};
  for (const action of view.legal_actions) legal[action.name.toLowerCase()] = action;
  return legal;
}

function render() {
  const view = current;
  const legal = legalByName(view);
  drawTable($("table"), view.table, legal, act);
  $("table").dataset.state = view.over ? "over" : view.your_turn ? "your-turn" : "waiting";
  $("text").textContent = view.text;
  $("status").textContent = view.over
    ? `Game over: ${view.result.text}`
    : view.your_turn ? `Your turn (${view.seat})` : `${view.to_act} to act`;
  $("hint").textContent = view.hint;
  // the legal actions the table does not show as cards or squares
  const onTable = new Set();
  for (const node of $("table").querySelectorAll(".card.legal")) onTable.add(node.dataset.card.toLowerCase());
  if (view.table.kind === "board") for (const name of Object.keys(legal)) onTable.add(name);
  const bar = $("actions");
  bar.replaceChildren();
  for (const action of view.legal_actions) {
    if (onTable.has(action.name.toLowerCase())) continue;
    const button = el("button", "legal", action.name);
    button.type = "button";
    button.dataset.action = action.name;
    button.addEventListener("click", () => act(action.name));
    bar.append(button);
  }
  for (const shortcut of view.shortcuts) {
    const button = el("button", "legal shortcut", shortcut === "random" ? "random (place the rest at random)" : "bot (the bot places the rest)");
    button.type = "button";
    button.dataset.action = shortcut;
    button.addEventListener("click", () => act(shortcut));
    bar.append(button);
  }
  if (view.over) showSummary(view);
  document.body.dataset.views = String(Number(document.body.dataset.views || 0) + 1);
}

function showSummary(view) {
  const box = $("summary");
  const scores = Object.entries(view.scores).map(([team, score]) => `${team} ${score}`).join(", ");
  box.replaceChildren(
    el("h2", "", view.result.you === "win" ? "You win!" : view.result.you === "lose" ? "You lose" : "Game over"),
    el("div", "", view.result.text),
    el("div", "", `scores: ${scores}`),
    el("div", "", `${view.move_count} moves · ${view.game} · seat ${view.seat} · seed ${view.seed}`),
  );
  const again = el("button", "", "New game");
  again.type = "button";
  again.addEventListener("click", () => { $("setup-form").scrollIntoView(); $("start").focus(); });
  box.append(again);
  box.hidden = false;
}

async function act(name) {
  if (busy || !current || !current.your_turn) return;
  busy = true;
  $("message").textContent = "";
  try {
    const view = await api("POST", `/api/games/${current.id}/actions`, { action: name });
    await show(view);
  } catch (error) {
    $("message").textContent = error.message;
  } finally {
    busy = false;
  }
}

// ----------------------------------------------------------------------- replays

const replay = { id: null, step: 0, n: 0, playing: false, seats: [] };

async function loadReplay(event) {
  event.preventDefault();
  $("replay-message").textContent = "";
  const file = $("replay-file").files[0];
  if (!file) { $("replay-message").textContent = "choose a records.jsonl file first"; return; }
  try {
    const text = await file.text();
    const summary = await api("POST", "/api/replays", { jsonl: text, game_index: Number($("replay-index").value) });
    replay.id = summary.id;
    replay.n = summary.n_steps;
    replay.steps = summary.steps;
    const info = summary.record;
    const specs = info.specs ? Object.entries(info.specs).map(([a, s]) => `${a}: ${s}`).join(", ") : "";
    const result = info.result ? Object.entries(info.result).map(([t, r]) => `${t} ${r}`).join(", ") : "";
    $("replay-info").textContent = `${summary.game} · ${summary.n_steps} actions · ${specs}` + (result ? ` · result ${result}` : "");
    $("rp-view").replaceChildren(new Option("referee", "referee"), ...summary.seats.map((s) => new Option(s, s)));
    $("rp-slider").max = String(replay.n);
    $("rp-step").max = String(replay.n);
    $("rp-count").textContent = `of ${replay.n}`;
    $("replay-area").hidden = false;
    await goTo(0);
  } catch (error) {
    $("replay-message").textContent = error.message;
  }
}

async function goTo(step) {
  if (!replay.id) return;
  step = Math.max(0, Math.min(replay.n, step));
  const view = $("rp-view").value || "referee";
  const frame = await api("GET", `/api/replays/${replay.id}/frames/${step}?view=${encodeURIComponent(view)}`);
  replay.step = frame.step;
  $("rp-slider").value = String(frame.step);
  $("rp-step").value = String(frame.step);
  $("rp-last-action").textContent = frame.last ? `action ${frame.step}: ${frame.last.agent}: ${frame.last.action}` : "the deal (before the first action)";
  drawTable($("rp-table"), frame.table, null, null);
  $("rp-table").dataset.step = String(frame.step);
  $("rp-text").textContent = frame.text;
}

function togglePlay() {
  if (replay.playing) { replay.playing = false; $("rp-play").textContent = "play"; return; }
  replay.playing = true;
  $("rp-play").textContent = "pause";
  const period = params.has("delay") ? Math.max(50, Number(params.get("delay"))) : 500;
  (async () => {
    // one step at a time: the next frame is asked for once the last one is drawn
    while (replay.playing && replay.step < replay.n) {
      await sleep(period);
      if (replay.playing) await goTo(replay.step + 1);
    }
    replay.playing = false;
    $("rp-play").textContent = "play";
  })();
}

// ------------------------------------------------------------------------- start

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
}

async function init() {
  META = await api("GET", "/api/meta");
  const list = el("datalist");
  list.id = "spec-list";
  // A form like "pimc[:worlds=N,...]" suggests its bare prefix, "pimc".
  for (const spec of META.specs) list.append(new Option(spec, spec.split(/[:[]/)[0]));
  document.body.append(list);
  $("spec-forms").textContent = META.specs.join(", ");
  $("game").replaceChildren(...Object.keys(META.games).map((g) => new Option(g, g)));
  $("game").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillOpponents);
  fillSeats();
  $("setup-form").addEventListener("submit", startGame);
  $("replay-form").addEventListener("submit", loadReplay);
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  $("rp-first").addEventListener("click", () => goTo(0));
  $("rp-prev").addEventListener("click", () => goTo(replay.step - 1));
  $("rp-next").addEventListener("click", () => goTo(replay.step + 1));
  $("rp-last").addEventListener("click", () => goTo(replay.n));
  $("rp-play").addEventListener("click", togglePlay);
  $("rp-slider").addEventListener("input", () => goTo(Number($("rp-slider").value)));
  $("rp-step").addEventListener("change", () => goTo(Number($("rp-step").value)));
  $("rp-view").addEventListener("change", () => goTo(replay.step));
  document.body.dataset.ready = "true";
}

init().catch((error) => { document.body.textContent = `could not start: ${error.message}`; });
