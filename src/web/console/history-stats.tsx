// History totals and a per-day bar chart from `GET /api/history/stats`, with days bounded in the
// browser's time zone. The bars are SVG geometry (attributes, not style), so the CSP holds.
import type { Answer } from "./api.ts";
import type { Resource } from "./ui.tsx";

export type HistoryStats = Answer<"get", "/api/history/stats">;

export const statsDays = 30;

/** The stats query for the last `statsDays` days as this browser counts them. */
export const statsQuery = () => ({ days: statsDays, tzOffsetMinutes: -new Date().getTimezoneOffset() });

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const count = (n: number) => n.toLocaleString();

/** A day as the reader writes it, from the API's YYYY-MM-DD. */
const dayLabel = (date: string) =>
  new Date(`${date}T12:00:00`).toLocaleDateString(undefined, { month: "short", day: "numeric" });

function DayChart(props: { days: HistoryStats["days"] }) {
  const { days } = props;
  const peak = Math.max(1, ...days.map((day) => day.sessions));
  const busiest = days.reduce<HistoryStats["days"][number] | undefined>(
    (best, day) => (!best || day.sessions > best.sessions ? day : best),
    undefined,
  );
  const total = days.reduce((sum, day) => sum + day.sessions, 0);
  const summary =
    total === 0 || !busiest
      ? `No dictations in the last ${days.length} days.`
      : `${total} dictations in the last ${days.length} days; the busiest day was ${dayLabel(busiest.date)} with ${busiest.sessions}.`;
  const width = days.length * 10;
  return (
    <figure class="chart">
      <svg
        class="chart-bars"
        viewBox={`0 0 ${width} 100`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Dictations per day. ${summary}`}
      >
        <line class="chart-axis" x1="0" y1="99.5" x2={width} y2="99.5" />
        {days.map((day, index) => {
          const height = (day.sessions / peak) * 96;
          return (
            <rect
              key={day.date}
              class="chart-bar"
              x={index * 10 + 1.5}
              y={100 - height}
              width="7"
              height={height}
            >
              <title>{`${dayLabel(day.date)}: ${day.sessions} dictations, ${day.words} words`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="row chart-caption small muted">
        <span>{days[0] && dayLabel(days[0].date)}</span>
        <span class="grow">Dictations per day (most: {peak})</span>
        <span>Today</span>
      </figcaption>
    </figure>
  );
}

export function HistoryStatsPanel(props: { stats: Resource<HistoryStats> }) {
  const stats = props.stats.data;
  if (!stats) return null;
  const figures: [string, string][] = [
    ["Dictations", count(stats.sessions)],
    ["Today", count(stats.today)],
    ["Words", count(stats.words)],
    ["Audio", duration(stats.audioMs)],
    ["Words per minute", stats.wordsPerMinute === null ? "–" : String(stats.wordsPerMinute)],
    [
      "Average processing",
      stats.averageProcessingMs === null ? "–" : `${count(stats.averageProcessingMs)} ms`,
    ],
  ];
  return (
    <section class="panel stats" aria-label="Statistics">
      <dl class="figures">
        {figures.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <DayChart days={stats.days} />
    </section>
  );
}
