// Building the page from data. Text always goes in through textContent: memory text is never
// read as markup.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "className") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export const $ = (id) => document.getElementById(id);

export function setStatus(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

export function reportError(error) {
  setStatus(error.message || String(error), true);
}

export function when(iso) {
  return iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "Z") : "—";
}

export function number(value, digits = 3) {
  return typeof value === "number" ? value.toFixed(digits) : "—";
}

export function tagList(tags) {
  return el("span", { className: "tags" }, (tags || []).map((tag) => el("span", { className: "tag", text: tag })));
}

// A definition list of label → value pairs, skipping empty values.
export function facts(pairs) {
  const list = el("dl", { className: "facts" });
  for (const [label, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    list.append(el("dt", { text: label }), el("dd", {}, value instanceof Node ? value : String(value)));
  }
  return list;
}

const SVG = "http://www.w3.org/2000/svg";

// An SVG element: attributes are presentation attributes, not inline style, so the policy
// lets them through.
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}
