// The addresses of the item browsers (kluebook.book.item_browser), their colour mode and the
// names of their filter controls; the tables themselves are DataTables, set up by itables.
// - `#item-<key>` opens the table on the page that holds that item and moves the focus to it.
// - `#<table id>=<view>` opens the table on a view: its search, SearchBuilder filters, order,
//   page length and page (JSON). The address follows the view as a reader changes it, so a
//   filtered view is shared by copying the address.
// - The tables follow the theme's light or dark mode (itables' own switch).
// - SearchBuilder's selects and inputs get names a screen reader says (it gives them none), and
//   "off" for the autocomplete value it sets, which is none the HTML standard knows.
import { jQuery as $, set_or_remove_dark_class } from "./itables/dt_bundle.js";

const NAMES = { "dtsb-data": "Column", "dtsb-condition": "Condition", "dtsb-value": "Value" };

function nameControls(root) {
  root.querySelectorAll("select, input").forEach((control) => {
    const kind = Object.keys(NAMES).find((name) => control.classList.contains(name));
    if (kind && !control.hasAttribute("aria-label")) {
      control.setAttribute("aria-label", `Filter condition: ${NAMES[kind].toLowerCase()}`);
    }
    if (kind && control.getAttribute("autocomplete") !== "off") {
      control.setAttribute("autocomplete", "off");
    }
  });
}

// A long value fits a narrow column: an identifier (an item's key, a label such as
// org:number_of_employees/members, a column's name) may wrap after each of its separators
// (_ : / . -), never between two of its letters, and a run of letters with neither a space nor
// a separator wider than LONG em (a degenerate answer: a Korean word is rarely longer than 7
// syllables) may wrap anywhere (`.long-word`); the words of running text, Korean included, wrap
// between words only. The text itself is unchanged (a <wbr> adds no character to a copy or a
// search). A table still wider than its column, its long texts open, then gets smaller type
// (`.dense`).
const LONG = 7;
// Where an identifier may wrap: after each of its separators.
const AFTER_SEPARATOR = /(?<=[_:/.-])(?=.)/;
const WIDE = /[\u1100-\u11ff\u3000-\u9fff\uac00-\ud7a3\uff00-\uffef]/;

// A token's width in em, about: a Hangul syllable or another CJK letter 1, another letter 0.5
// ("contradiction", 6.5, stays whole).
function ems(token) {
  return Array.from(token).reduce((sum, letter) => sum + (WIDE.test(letter) ? 1 : 0.5), 0);
}

// The text nodes under `root` with a token wider than `shortest` em: each such token gets a
// <wbr> after each of its separators, and each of its parts wider than LONG becomes a
// `.long-word`.
function breakable(root, shortest = LONG) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.data.split(/\s+/).some((token) => ems(token) > shortest)) found.push(node);
  }
  found.forEach((node) => {
    const pieces = [];
    node.data.split(/(\s+)/).forEach((token) => {
      const parts = ems(token) > shortest ? token.split(AFTER_SEPARATOR) : [token];
      parts.forEach((part, i) => {
        if (i) pieces.push(document.createElement("wbr"));
        if (ems(part) > LONG) {
          const word = document.createElement("span");
          word.className = "long-word";
          word.textContent = part;
          pieces.push(word);
        } else {
          pieces.push(part);
        }
      });
    });
    node.replaceWith(...pieces);
  });
}

function breakableCells(api) {
  api.table().node().querySelectorAll("tbody td:not([data-breakable])").forEach((cell) => {
    breakable(cell);
    cell.dataset.breakable = "";
  });
}

const tables = [];
let restoring = false;

function view(api) {
  const shown = { search: api.search(), order: api.order(), length: api.page.len() };
  shown.page = api.page();
  if (api.searchBuilder) shown.filters = api.searchBuilder.getDetails();
  return shown;
}

function isDefault(shown, initial) {
  const filters = shown.filters && shown.filters.criteria && shown.filters.criteria.length;
  return !shown.search && !filters && !shown.page && !shown.order.length
    && shown.length === initial;
}

function openItem(api, anchor) {
  const shown = document.getElementById(anchor);
  if (shown && api.table().node().contains(shown)) {
    shown.focus();
    return true;
  }
  const needle = `id="${anchor}"`;
  const index = api.rows().indexes().toArray()
    .find((i) => api.row(i).data().some((cell) => String(cell).includes(needle)));
  if (index === undefined) return false;
  restoring = true;
  api.search("").order([]);
  if (api.searchBuilder) api.searchBuilder.rebuild({});
  api.draw();
  const position = api.rows({ search: "applied", order: "applied" }).indexes().toArray()
    .indexOf(index);
  api.page(Math.floor(position / api.page.len())).draw("page");
  restoring = false;
  const link = document.getElementById(anchor);
  if (link) {
    link.scrollIntoView({ block: "center" });
    link.focus();
  }
  return true;
}

function openView(api, text) {
  let shown;
  try {
    shown = JSON.parse(decodeURIComponent(text));
  } catch {
    return;
  }
  restoring = true;
  if (shown.filters && api.searchBuilder) api.searchBuilder.rebuild(shown.filters);
  api.search(shown.search || "").order(shown.order || []);
  if (shown.length) api.page.len(shown.length);
  api.draw();
  api.page(shown.page || 0).draw("page");
  restoring = false;
}

function follow(api) {
  const hash = decodeURIComponent(window.location.hash.slice(1));
  if (hash.startsWith("item-")) {
    tables.some((other) => openItem(other, hash));
  } else if (hash.startsWith(`${api.table().node().id}=`)) {
    openView(api, window.location.hash.slice(api.table().node().id.length + 2));
  }
}

$(document).on("init.dt", (event, settings) => {
  const api = new $.fn.dataTable.Api(settings);
  const id = api.table().node().id;
  const initial = api.page.len();
  tables.push(api);
  const container = api.table().container();
  new MutationObserver(() => nameControls(container))
    .observe(container, { childList: true, subtree: true });
  if (container.closest(".kluebook-items")) {
    api.columns().header().each((head) => breakable(head, 0)); // a column's name: raw_answer
    const table = api.table().node(), column = container.closest(".kluebook-items");
    const wide = () => table.getBoundingClientRect().width > column.clientWidth + 1;
    const fit = () => {  // measured with the page's long texts closed, then open
      breakableCells(api);
      const closed = Array.from(table.querySelectorAll("details:not([open])"));
      let over = wide();
      closed.forEach((text) => { text.open = true; });
      over = over || wide();
      closed.forEach((text) => { text.open = false; });
      if (over) table.classList.add("dense");
    };
    fit();
    api.on("draw", fit);
  }
  follow(api);
  api.on("draw", () => {
    if (restoring) return;
    const shown = view(api);
    const hash = window.location.hash;
    if (isDefault(shown, initial) && !hash.startsWith(`#${id}=`)) return;
    const address = `#${id}=${encodeURIComponent(JSON.stringify(shown))}`;
    window.history.replaceState(null, "", address);
  });
});

window.addEventListener("hashchange", () => tables.forEach(follow));
set_or_remove_dark_class();
