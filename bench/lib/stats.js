// Small statistics over lists of measurements.

/** The median of a non-empty list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) throw new Error('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The sum of a list of numbers (0 for an empty list). */
export function sum(values) {
  return values.reduce((total, v) => total + v, 0);
}

/** "m median; a, b, c (range lo–hi, ±x% of the median)": how steady repeated ratios are. */
export function spread(values, format) {
  const m = median(values);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return `${format(m)} median; ${values.map(format).join(', ')} (range ${format(lo)}–${format(hi)}, ±${((100 * (hi - lo)) / 2 / m).toFixed(0)}% of the median)`;
}
