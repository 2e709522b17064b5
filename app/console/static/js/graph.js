// Graph: your newest memories, the entities they mention and the typed links between them
// (GET /me/graph), drawn with cytoscape (vendored in ../vendor, see its README): drag to pan,
// scroll to zoom, click a memory to open it or an entity to list its memories. The same nodes
// are listed as buttons below the drawing, for the keyboard.

import cytoscape from "../vendor/cytoscape.esm.min.js";
import { request } from "./api.js";
import { $, clear, el, plural, reportError, setStatus } from "./dom.js";
import { openEntity, openMemory } from "./cards.js";

let drawing = null;

const STYLE = [
  { selector: "node", style: { label: "data(short)", "font-size": 14, "text-wrap": "ellipsis", "text-max-width": 170, "text-valign": "bottom", "text-margin-y": 4, color: "#1d2330", width: 22, height: 22 } },
  { selector: "node[kind = 'memory']", style: { "background-color": "#2f5bd3" } },
  { selector: "node[?pinned]", style: { "border-width": 3, "border-color": "#e0a100" } },
  { selector: "node[kind = 'entity']", style: { shape: "round-diamond", "background-color": "#2e8b57", width: 26, height: 26, "font-weight": "bold" } },
  { selector: "edge", style: { width: 1.6, "line-color": "#aab3c5", "target-arrow-color": "#aab3c5", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(type)", "font-size": 11, color: "#647087", "text-rotation": "autorotate" } },
  { selector: "edge[type = 'MENTIONS']", style: { "line-style": "dashed", label: "" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#b3261e" } },
];

// Two memories are often linked several times (SIMILAR_TO, INVALIDATED_BY, PRECEDED_BY…):
// their springs are weakened (a higher elasticity divisor) so that they do not sit on each other.
const mentions = (edge) => edge.data("type") === "MENTIONS";
const LAYOUT = {
  name: "cose",
  animate: false,
  randomize: false,
  nodeRepulsion: () => 60000,
  nodeOverlap: 40,
  idealEdgeLength: (edge) => (mentions(edge) ? 110 : 170),
  edgeElasticity: (edge) => (mentions(edge) ? 100 : 500),
  componentSpacing: 80,
};

function open(node) {
  if (node.kind === "memory") openMemory(node.id);
  else openEntity(node.slug);
}

function elements(picture) {
  const nodes = picture.nodes.map((node) => ({ data: { ...node, short: node.label.length > 40 ? `${node.label.slice(0, 38)}…` : node.label } }));
  const edges = picture.edges.map((edge, at) => ({ data: { id: `edge-${at}`, ...edge } }));
  return [...nodes, ...edges];
}

function nodeList(picture) {
  const degree = new Map();
  for (const edge of picture.edges) for (const end of [edge.source, edge.target]) degree.set(end, (degree.get(end) || 0) + 1);
  return picture.nodes.map((node) => el("li", { "data-id": node.id },
    el("button", { type: "button", className: "link", text: node.label, onclick: () => open(node) }),
    el("span", { className: "muted", text: ` ${node.kind} · ${node.type} · ${plural(degree.get(node.id) || 0, "link")}` })));
}

export async function drawGraph() {
  const limit = $("graph-limit").value;
  try {
    const picture = await request("GET", `/me/graph?limit=${limit}`);
    if (drawing) drawing.destroy();
    drawing = cytoscape({
      container: $("graph"),
      elements: elements(picture),
      style: STYLE,
      layout: LAYOUT,
      wheelSensitivity: 0.3,
      minZoom: 0.2,
      maxZoom: 4,
    });
    drawing.on("tap", "node", (event) => open(event.target.data()));
    $("graph").drawing = drawing; // for the browser test, which clicks a node where it is drawn
    clear($("graph-nodes")).append(...nodeList(picture));
    const memories = picture.nodes.filter((node) => node.kind === "memory").length;
    setStatus(`${plural(memories, "memory", "memories")}, ${plural(picture.nodes.length - memories, "entity", "entities")}, ${plural(picture.edges.length, "link")}`);
  } catch (error) {
    reportError(error);
  }
}

export function setUpGraph() {
  $("graph-draw").addEventListener("click", drawGraph);
  $("graph-fit").addEventListener("click", () => drawing && drawing.fit(undefined, 20));
}
