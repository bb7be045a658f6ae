// Times as their reader reads them: in the browser's own zone, named, to the minute
// ("2026-12-08 12:06 EST"), as the command line prints them. The API sends RFC 3339 UTC.

const FIELDS = {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZoneName: "short",
};

export function localTime(rfc3339) {
  const part = {};
  // A new format each time: it takes the zone the browser is in now.
  const format = new Intl.DateTimeFormat("en-US", FIELDS);
  for (const { type, value } of format.formatToParts(new Date(rfc3339))) part[type] = value;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
}
