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
