// The side-by-side view of a task page (kluebook.book.side_by_side): two run pickers, the 2x2
// counts of the picked pair and the DataTables list of the items on which they disagree (or
// that both get wrong), read from the view's JSON block. The address keeps the pick,
// `#<view id>=<a>,<b>` (runs numbered from 1) and `,both-wrong` for that list, so a pair and its
// list are shared by copying the address. The counts are every pair's, read from the data; a
// pair's list holds the items of the data it matches, which may be a sample (a line says so).
import { jQuery as $ } from "./itables/dt_bundle.js";

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The pair's 2x2 counts over every item (`pairs`: first, second, both, only first, only
// second, neither).
function counts(data, a, b) {
  const [x, y] = a < b ? [a, b] : [b, a];
  const [, , both, onlyX, onlyY, neither] = data.pairs.find(([p, q]) => p === x && q === y);
  return a < b
    ? { both, onlyA: onlyX, onlyB: onlyY, neither }
    : { both, onlyA: onlyY, onlyB: onlyX, neither };
}

function runLink(run) {
  return run.page ? `<a href="${escape(run.page)}#items">${escape(run.name)}</a>` : escape(run.name);
}

// The pair's 2x2 table, as kluebook.book.side_by_side.counts_table writes it.
function countsTable(total, c) {
  return `<table class="klue-table pair-counts"><caption>Of the ${total} items: both right `
    + `${c.both}, only A right ${c.onlyA}, only B right ${c.onlyB}, both wrong ${c.neither}.`
    + `</caption><thead><tr><td></td><th scope="col">B right</th><th scope="col">B wrong</th>`
    + `</tr></thead><tbody><tr><th scope="row">A right</th><td>${c.both}</td>`
    + `<td>${c.onlyA}</td></tr><tr><th scope="row">A wrong</th><td>${c.onlyB}</td>`
    + `<td>${c.neither}</td></tr></tbody></table>`;
}

const CAPTIONS = {
  "disagree": "Items one run of the pair gets right and the other wrong",
  "both-wrong": "Items both runs of the pair get wrong",
};
const WORDS = { "disagree": "on which they disagree", "both-wrong": "both get wrong" };

// How many of the pair's items of the kind shown the list holds, as
// kluebook.book.side_by_side.shown_text writes it.
function shownText(listed, found, shown) {
  if (listed === found) return `The list holds all ${found} items ${WORDS[shown]}.`;
  return `The list holds ${listed} of the ${found} items ${WORDS[shown]}, spread over the dev `
    + "set; every item is in the download below the view.";
}

function rows(data, a, b, shown) {
  const [A, B] = [data.runs[a], data.runs[b]];
  const wanted = shown === "both-wrong"
    ? (i) => A.right[i] === "0" && B.right[i] === "0"
    : (i) => A.right[i] !== B.right[i];
  const found = [];
  data.items.forEach(([key, anchor, gold], i) => {
    if (!wanted(i)) return;
    const item = A.page ? `<a href="${escape(A.page)}#${escape(anchor)}">${escape(key)}</a>` : escape(key);
    const texts = [gold, A.predicted[i], B.predicted[i]].map((t) => escape(data.texts[t]));
    const right = { "10": "A", "01": "B", "00": "neither" }[A.right[i] + B.right[i]];
    found.push([item, right, ...texts]);
  });
  return found;
}

function pickFromAddress(view, count) {
  const prefix = `#${view.id}=`;
  const hash = decodeURIComponent(window.location.hash);
  if (!hash.startsWith(prefix)) return null;
  const [a, b, shown = "disagree"] = hash.slice(prefix.length).split(",");
  const pick = [a, b].map((n) => Number(n) - 1);
  const valid = pick.every((n) => Number.isInteger(n) && n >= 0 && n < count) && shown in CAPTIONS;
  return valid ? [...pick, shown] : null;
}

function setUp(view) {
  const data = JSON.parse(view.querySelector(`#${view.id}-data`).textContent);
  const [pickA, pickB, pickShown] = ["a", "b", "show"]
    .map((side) => view.querySelector(`#${view.id}-${side}`));
  const said = view.querySelector(".side-by-side-counts");
  const line = view.querySelector(`#${view.id}-shown`);
  const table = view.querySelector(`#${view.id}-items`);
  view.querySelector(".side-by-side-pick").hidden = false;

  function show(api, write) {
    const [a, b, shown] = [Number(pickA.value), Number(pickB.value), pickShown.value];
    table.querySelector("caption").textContent = CAPTIONS[shown];
    // The address always names the pick on screen, a pair of one run twice included.
    const list = shown === "disagree" ? "" : `,${shown}`;
    if (write) window.history.replaceState(null, "", `#${view.id}=${a + 1},${b + 1}${list}`);
    if (a === b) {
      said.textContent = "Pick two different runs.";
      line.textContent = "";
      api.clear().draw();
      return;
    }
    const c = counts(data, a, b);
    said.innerHTML = `<p>A is ${runLink(data.runs[a])}, B is ${runLink(data.runs[b])}.</p>`
      + countsTable(data.total, c);
    const found = rows(data, a, b, shown);
    const total = shown === "both-wrong" ? c.neither : c.onlyA + c.onlyB;
    line.textContent = shownText(found.length, total, shown);
    api.clear().rows.add(found).draw();
  }

  function start(api) {
    const follow = () => {
      const pick = pickFromAddress(view, data.runs.length);
      if (!pick) return false;
      [pickA.value, pickB.value, pickShown.value] = pick.map(String);
      show(api, false);
      view.scrollIntoView();
      return true;
    };
    follow();
    [pickA, pickB, pickShown]
      .forEach((pick) => pick.addEventListener("change", () => show(api, true)));
    window.addEventListener("hashchange", follow);
  }

  if ($.fn.dataTable.isDataTable(table)) start(new $.fn.dataTable.Api(table));
  else $(table).one("init.dt", (event, settings) => start(new $.fn.dataTable.Api(settings)));
}

document.querySelectorAll(".kluebook-side-by-side").forEach(setUp);
