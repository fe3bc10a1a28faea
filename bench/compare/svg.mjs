// Hand-written SVG charts, one per workload: per panel, one horizontal bar per server at its
// median with a min-max whisker, the floor (or another reference) as a dashed line, units on the
// axis, and "not run: …" / "not applicable: …" rows written out. The background is drawn, so the
// chart reads the same in GitHub's light and dark themes.

const WIDTH = 900;
const LABEL_RIGHT = 236;
const PLOT_LEFT = 246;
const PLOT_RIGHT = 670;
const VALUE_LEFT = 680;
const ROW = 26;
const BAR = 12;
const CHARS_PER_LINE = 98; // 12 px sans across PLOT_LEFT..WIDTH

const COLORS = {
  'zodex-stdio': '#0969da',
  'zodex-http': '#54aeff',
  'desktop-commander': '#bf3989',
  'mcp-server-commands': '#bc4c00',
  floor: '#6e7781',
  reference: '#8c959f',
};
const INK = '#1f2328';
const MUTED = '#57606a';
const GRID = '#d0d7de';
const WARN = '#cf222e';

const esc = (text) => String(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// Round steps (1, 2, 2.5, 5 x 10^k) giving about five ticks from 0 to at least `max`.
function ticks(max) {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

export function formatValue(value, unit) {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  const number = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === '×' ? `${number}×` : `${number} ${unit}`;
}

// Log-scale ticks covering lo..hi: 1, 2, 5 x 10^k, or 1, 3 x 10^k over more than two decades.
function logTicks(lo, hi) {
  const out = [];
  const steps = Math.log10(hi / lo) > 2 ? [1, 3] : [1, 2, 5];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++) {
    for (const m of steps) {
      const v = Number((m * 10 ** k).toPrecision(6));
      if (v >= lo / 1.0001 && v <= hi * 1.0001) out.push(v);
    }
  }
  return out;
}

// Linear axes start at 0 and bars grow from there; a log axis (for ratios) has its bars grow
// from the reference value (1×), left for below it, right for above.
function scaleFor(p, okRows) {
  const refValue = p.reference?.value;
  if (p.scale === 'log') {
    const values = okRows.flatMap((r) => [r.stats.min, r.stats.max]).filter((v) => v > 0);
    const lo = 10 ** Math.floor(Math.log10(Math.min(...values, refValue ?? 1, 1)));
    const hi = 10 ** Math.ceil(Math.log10(Math.max(...values, refValue ?? 1, 1) * 1.0001));
    const span = Math.log10(hi) - Math.log10(lo);
    const x = (v) => PLOT_LEFT + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span) * (PLOT_RIGHT - PLOT_LEFT);
    return { x, axis: logTicks(lo, hi), base: x(refValue ?? 1), log: true };
  }
  const max = Math.max(...okRows.map((r) => r.stats.max), refValue ?? 0, 0);
  const axis = ticks(max * 1.02);
  const top = axis[axis.length - 1] || 1;
  return { x: (v) => PLOT_LEFT + (Math.max(0, v) / top) * (PLOT_RIGHT - PLOT_LEFT), axis, base: PLOT_LEFT, log: false };
}

const formatTick = (v, unit) => {
  const number = Number(v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 3 });
  return unit === '×' ? `${number}×` : `${number} ${unit}`;
};

function panel(svg, y, p) {
  const rows = p.rows;
  const okRows = rows.filter((r) => r.status === 'ok');
  const refValue = p.reference?.value;
  const { x, axis, base, log } = scaleFor(p, okRows);

  svg.push(`<text x="16" y="${y + 14}" font-size="13" font-weight="600" fill="${INK}">${esc(p.title)}</text>`);
  y += 22;
  if (p.reference) {
    const label = `${p.reference.label}: ${formatValue(refValue, p.unit)}`;
    const rx = x(refValue);
    const anchor = rx > PLOT_RIGHT - 150 ? 'end' : rx < PLOT_LEFT + 150 ? 'start' : 'middle';
    svg.push(`<text x="${rx.toFixed(1)}" y="${y + 10}" font-size="11" fill="${MUTED}" text-anchor="${anchor}">${esc(label)}</text>`);
    y += 14;
  }
  const rowsTop = y;
  const textSpans = []; // rows written as text: the reference line skips them
  for (const r of rows) {
    const color = COLORS[r.kind === 'server' ? r.target : r.kind] ?? COLORS.reference;
    const cy = y + ROW / 2;
    svg.push(
      `<text x="${LABEL_RIGHT}" y="${cy + 4}" font-size="12" fill="${INK}" text-anchor="end"${r.kind === 'server' ? '' : ' font-style="italic"'}>${esc(r.label)}</text>`,
    );
    if (r.status === 'ok') {
      const { median, min, max: hi } = r.stats;
      const [from, to] = [Math.min(base, x(median)), Math.max(base, x(median))];
      svg.push(
        `<rect x="${from.toFixed(1)}" y="${cy - BAR / 2}" width="${Math.max(1, to - from).toFixed(1)}" height="${BAR}" fill="${color}" fill-opacity="0.75"/>`,
      );
      svg.push(`<line x1="${x(min).toFixed(1)}" y1="${cy}" x2="${x(hi).toFixed(1)}" y2="${cy}" stroke="${INK}" stroke-width="1.2"/>`);
      for (const v of [min, hi])
        svg.push(`<line x1="${x(v).toFixed(1)}" y1="${cy - 4}" x2="${x(v).toFixed(1)}" y2="${cy + 4}" stroke="${INK}" stroke-width="1.2"/>`);
      svg.push(
        `<line x1="${x(median).toFixed(1)}" y1="${cy - BAR / 2 - 2}" x2="${x(median).toFixed(1)}" y2="${cy + BAR / 2 + 2}" stroke="${INK}" stroke-width="2.4"/>`,
      );
      const range = r.stats.n > 1 ? ` (${formatValue(min, p.unit)} – ${formatValue(hi, p.unit)})` : '';
      svg.push(
        `<text x="${VALUE_LEFT}" y="${cy + 4}" font-size="11.5" fill="${INK}"><tspan font-weight="600">${esc(formatValue(median, p.unit))}</tspan>${esc(range)}</text>`,
      );
      if (r.annotation) {
        svg.push(`<text x="${VALUE_LEFT}" y="${cy + 17}" font-size="11" fill="${WARN}">${esc(r.annotation)}</text>`);
        y += 12;
      }
      y += ROW;
    } else {
      const lines = wrap(`${r.status}: ${r.reason}`, CHARS_PER_LINE).slice(0, 3);
      lines.forEach((line, i) => {
        svg.push(`<text x="${PLOT_LEFT}" y="${cy + 4 + i * 14}" font-size="12" fill="${MUTED}" font-style="italic">${esc(line)}</text>`);
      });
      textSpans.push([y, y + ROW + (lines.length - 1) * 14]);
      y += ROW + (lines.length - 1) * 14;
    }
  }
  // Axis with ticks and unit.
  svg.push(`<line x1="${PLOT_LEFT}" y1="${y + 2}" x2="${PLOT_RIGHT}" y2="${y + 2}" stroke="${MUTED}" stroke-width="1"/>`);
  for (const t of axis) {
    const tx = x(t).toFixed(1);
    let from = rowsTop;
    for (const [start, end] of [...textSpans, [y + 2, y + 2]]) {
      if (start > from) svg.push(`<line x1="${tx}" y1="${from}" x2="${tx}" y2="${start}" stroke="${GRID}" stroke-width="0.6"/>`);
      from = end;
    }
    svg.push(`<line x1="${tx}" y1="${y + 2}" x2="${tx}" y2="${y + 6}" stroke="${MUTED}" stroke-width="1"/>`);
    svg.push(`<text x="${tx}" y="${y + 18}" font-size="10.5" fill="${MUTED}" text-anchor="middle">${esc(formatTick(t, p.unit))}</text>`);
  }
  svg.push(
    `<text x="${PLOT_RIGHT}" y="${y + 32}" font-size="10.5" fill="${MUTED}" text-anchor="end">${esc(p.axis ?? `${p.unit}, median with min–max${log ? ', log scale' : ''}`)}${p.better ? esc(`; ${p.better} is better`) : ''}</text>`,
  );
  if (p.reference) {
    const rx = x(refValue).toFixed(1);
    let from = rowsTop - 2;
    for (const [start, end] of [...textSpans, [y + 2, y + 2]]) {
      if (start > from) svg.push(`<line x1="${rx}" y1="${from}" x2="${rx}" y2="${start}" stroke="${INK}" stroke-width="1.2" stroke-dasharray="5 3"/>`);
      from = end;
    }
  }
  return y + 44;
}

// The chart of one workload result (see bench/run.mjs for the shape).
export function renderChart(result) {
  const body = [];
  let y = 26;
  body.push(`<text x="16" y="${y}" font-size="16" font-weight="700" fill="${INK}">${esc(result.title)}</text>`);
  y += 8;
  for (const line of wrap(result.subtitle ?? '', 130)) {
    y += 16;
    body.push(`<text x="16" y="${y}" font-size="11.5" fill="${MUTED}">${esc(line)}</text>`);
  }
  y += 16;
  for (const p of result.panels) y = panel(body, y, p);
  for (const note of result.notes ?? []) {
    for (const line of wrap(note, 140)) {
      body.push(`<text x="16" y="${y}" font-size="11" fill="${MUTED}">${esc(line)}</text>`);
      y += 15;
    }
  }
  const height = Math.ceil(y + 6);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" role="img" aria-label="${esc(result.title)}">`,
    `<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff" stroke="${GRID}"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
