import { trusted, type Html } from './ui-html.ts';

/** One bar of a {@link stageChart}: a stage's name and how long it took, in ms. */
export interface StageBar {
  readonly label: string;
  readonly ms: number;
}

const BAR_HEIGHT = 18;
const GAP = 6;
const LABEL_WIDTH = 190;
const BAR_WIDTH = 380;

/** `text` safe inside SVG text (the labels name destinations, which a project names). */
function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A horizontal bar chart of stage durations as inline SVG (no script, no asset): one bar per
 * stage, scaled to the longest, with its duration written after it. Empty when no stage has a
 * duration. The labels are escaped; the geometry is numbers this function computed.
 */
export function stageChart(bars: readonly StageBar[]): Html {
  if (bars.length === 0) return trusted('');
  const longest = Math.max(1, ...bars.map((b) => b.ms));
  const height = bars.length * (BAR_HEIGHT + GAP);
  const rows = bars.map((bar, i) => {
    const y = i * (BAR_HEIGHT + GAP);
    const width = Math.max(1, Math.round((bar.ms / longest) * BAR_WIDTH));
    const seconds = bar.ms >= 1000 ? `${(bar.ms / 1000).toFixed(1)} s` : `${Math.round(bar.ms)} ms`;
    return (
      `<text x="0" y="${y + 13}">${escapeXml(bar.label)}</text>` +
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${width}" height="${BAR_HEIGHT}" rx="3" fill="#2f6fd6"><title>${escapeXml(bar.label)}: ${seconds}</title></rect>` +
      `<text x="${LABEL_WIDTH + width + 6}" y="${y + 13}">${seconds}</text>`
    );
  });
  const width = LABEL_WIDTH + BAR_WIDTH + 70;
  return trusted(`<svg class="stage-chart" role="img" aria-label="stage durations" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${rows.join('')}</svg>`);
}
