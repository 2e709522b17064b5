// Memories created per day as an SVG bar chart, drawn here: a few dozen lines instead of a
// charting library, and nothing the page's policy would refuse.

import { el, svg } from "./dom.js";

const WIDTH = 900;
const HEIGHT = 170;
const LEFT = 34;
const BOTTOM = 22;

// Every day from `days` ago to today, with its count (0 where none was created).
export function everyDay(perDay, days) {
  const counts = new Map(perDay.map((entry) => [entry.day, entry.count]));
  const today = new Date();
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1 - index)));
    const key = day.toISOString().slice(0, 10);
    return { day: key, count: counts.get(key) || 0 };
  });
}

function ticks(max) {
  const step = Math.max(1, Math.ceil(max / 4));
  return Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step);
}

export function dayChart(perDay, days) {
  const series = everyDay(perDay, days);
  const max = Math.max(1, ...series.map((entry) => entry.count));
  const plotWidth = WIDTH - LEFT - 6;
  const plotHeight = HEIGHT - BOTTOM - 8;
  const slot = plotWidth / series.length;
  const y = (count) => 8 + plotHeight - (count / max) * plotHeight;
  const grid = ticks(max).map((value) => [
    svg("line", { x1: LEFT, x2: WIDTH - 6, y1: y(value), y2: y(value), class: "grid" }),
    svg("text", { x: LEFT - 4, y: y(value) + 4, class: "axis", "text-anchor": "end", text: value }),
  ]);
  const bars = series.map((entry, index) =>
    svg("rect", { x: LEFT + index * slot + slot * 0.1, y: y(entry.count), width: slot * 0.8, height: Math.max(0, 8 + plotHeight - y(entry.count)), class: "bar", "data-day": entry.day, "data-count": entry.count },
      svg("title", { text: `${entry.day}: ${entry.count}` })),
  );
  const labels = [0, Math.floor(series.length / 2), series.length - 1].map((index) =>
    svg("text", { x: LEFT + index * slot + slot / 2, y: HEIGHT - 6, class: "axis", "text-anchor": "middle", text: series[index].day.slice(5) }));
  const total = series.reduce((sum, entry) => sum + entry.count, 0);
  return el("figure", { className: "chart" },
    svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": `Memories added per day, last ${days} days: ${total} in all` }, grid, bars, labels),
    el("figcaption", { className: "muted", text: `Memories added per day (last ${days} days): ${total}` }));
}
