// The interactive KLUE table (kluebook.book.klue_table), built in the browser from the plain
// table the page holds, so that the page carries the table once. The plain table is in blocks
// of rows (a tbody each, opened by its section row, whose `data-block` is the block's short
// name); the interactive one is one list whose first columns are the block (to filter by, its
// order that of the blocks) and the section's title (hidden: RowGroup shows it as the block's
// heading row), then the plain row's own cells, copied node by node. A block with no row gets
// one row saying so (its section's note in the model column, its numbers empty). itables'
// script, after this one on the page, then makes it a DataTables table. Without JavaScript the
// plain table is the one shown.

function cell(tag, className, content, attributes = {}) {
  const made = document.createElement(tag);
  made.className = className;
  Object.entries(attributes).forEach(([name, value]) => made.setAttribute(name, value));
  made.append(...content);
  return made;
}

function build(table, plain) {
  const head = plain.tHead.cloneNode(true);
  head.rows[0].prepend(
    cell("th", "block", ["Block"], { rowspan: "2", scope: "col" }),
    cell("th", "section", ["Section"], { rowspan: "2", scope: "col" }),
  );
  const numbers = head.querySelectorAll("th.metric").length;
  const body = document.createElement("tbody");
  Array.from(plain.tBodies).forEach((group, order) => {
    const section = group.querySelector("tr.section");
    const title = section.querySelector(".section-title");
    Array.from(group.rows).forEach((row) => {
      if (row === section) return;
      const flat = cell("tr", group.className, [
        cell("td", "block", [section.dataset.block], { "data-order": String(order) }),
        cell("td", "section", [title.cloneNode(true)]),
      ]);
      const empty = row.querySelector("td.empty .section-title");
      if (empty) {
        const note = Array.from(empty.childNodes, (node) => node.cloneNode(true));
        flat.append(cell("th", "model empty", note, { scope: "row" }));
        for (let i = 0; i < numbers; i += 1) {
          flat.append(cell("td", "num missing", [], { "data-order": "-1" }));
        }
      } else {
        flat.append(...Array.from(row.cells, (c) => c.cloneNode(true)));
      }
      body.append(flat);
    });
  });
  table.append(head, body);
}

// Each plain KLUE table is itables' fallback of the interactive one: `<id>_fallback`.
document.querySelectorAll("div[id$='_fallback'] > table.klue-table").forEach((plain) => {
  const table = document.getElementById(plain.parentElement.id.replace(/_fallback$/, ""));
  if (table && !table.tBodies.length) build(table, plain);
});
