// A club's evening as a TypeScript integrator writes it with openapi-fetch over the types
// openapi-typescript generates from the served description (tests/api/test_generated_client.py
// compiles it with `tsc --noEmit --strict`): a club, its players, an event per game, check-in, a
// draw, a hand of each game typed with the description's record components, the standings. Every
// body, parameter and answer here is checked against the description by the compiler.
import createClient from "openapi-fetch";
import type { components, paths } from "./stich";

type Schemas = components["schemas"];
type Game = Schemas["GameEnum"];

export function clients(baseUrl: string, token: string, scorerToken?: string) {
  const organiser = createClient<paths>({ baseUrl, headers: { Authorization: `Token ${token}` } });
  const table = createClient<paths>({ baseUrl, headers: scorerToken ? { "X-Scorer-Token": scorerToken } : {} });
  return { organiser, table };
}

// A hand of each game, typed as the description's components: summaries as a paper score sheet
// holds them, and a full Maumau record.
export const muSummary: Schemas["MuSummaryRecord"] = {
  game: "mu", players: 4, dealer: 0,
  summary: { bids: [3, 1, 3, 4], chef: 3, vice: 2, provocateur: null, chef_trump: "1", vice_trump: "G",
             partner: null, card_points: [10, 12, 9, 29] },
};
export const maumauSummary: Schemas["MaumauSummaryRecord"] = {
  game: "maumau", players: 4, dealer: 1, direction: 1, summary: { minus: [0, 12, 7, 3] },
};
export const maumauFull: Schemas["MaumauFullRecord"] = {
  game: "maumau", players: 4, dealer: 0,
  hands: [["7C", "8C", "9C", "TC", "JC"], ["7S", "8S", "9S", "TS", "JS"], ["7H", "8H", "9H", "TH", "JH"],
          ["7D", "8D", "9D", "TD", "JD"]],
  upcard: "QC",
  events: [{ seat: 1, play: "7C", wish: null }, { seat: 2, draw: ["KC"] }, { seat: 3, show: ["AC"], taken: null }],
};
export const lutSummary: Schemas["LutSummaryRecord"] = {
  game: "lut", players: 4, dealer: 2, claimed: { scores: [1, 2, 3, 4] },
  summary: { stacks: [{ R: 2, discarded: 1 }, { Y: 1, discarded: 0 }, { discarded: 3 }, { B: null, G: 4, discarded: 2 }] },
};
const hands: Record<Game, Schemas["HandRecord"][]> = {
  mu: [muSummary], maumau: [maumauSummary, maumauFull], lut: [lutSummary],
};

/** A 422 is the engine's refusal (`RecordError`); every other error answer is `Error`. */
function refusedByTheEngine(response: Response, error: Schemas["Error"] | Schemas["RecordError"]): error is Schemas["RecordError"] {
  return response.status === 422;
}

export async function evening(baseUrl: string, token: string): Promise<Schemas["StandingRow"][]> {
  const { organiser } = clients(baseUrl, token);
  const club = await organiser.POST("/api/v1/clubs/", { body: { name: "Stichclub", city: "Tampere" } });
  if (!club.data) throw new Error(club.error.message);
  const clubId: number = club.data.id;
  const players: number[] = [];
  for (const name of ["Anna", "Beate", "Carla", "Dora"]) {
    const made = await organiser.POST("/api/v1/players/", { body: { name, clubs: [clubId], initials_only: false } });
    if (made.error) throw new Error(`${made.error.code}: ${made.error.message}`);
    players.push(made.data.id);
  }
  const rows: Schemas["StandingRow"][] = [];
  for (const game of ["mu", "maumau", "lut"] as const) {
    const event = await organiser.POST("/api/v1/events/", {
      body: { club: clubId, name: `Evening (${game})`, game, format: "rounds", published: true },
    });
    if (!event.data) throw new Error(event.error.code);
    // Attaching nothing but a date: a PATCH names only what it changes.
    const patched = await organiser.PATCH("/api/v1/events/{id}/", {
      params: { path: { id: event.data.id } }, body: { starts_on: "2026-12-05" },
    });
    const stillPublished: boolean | undefined = patched.data?.published;
    for (const player of players) {
      const checkin = await organiser.POST("/api/v1/events/{id}/checkins/", {
        params: { path: { id: event.data.id } }, body: { player },
      });
      if (checkin.error) throw new Error(checkin.error.message);
    }
    const round = await organiser.POST("/api/v1/rounds/", { body: { event: event.data.id } });
    if (!round.data) throw new Error(round.error.code);
    const draw = await organiser.POST("/api/v1/rounds/{id}/draw/", {
      params: { path: { id: round.data.id } }, body: { players, seed: 7 },
    });
    const seated: number[] = draw.data ? draw.data.tables.flatMap((table) => table.players) : [];
    const published = await organiser.POST("/api/v1/rounds/{id}/draw/publish/", { params: { path: { id: round.data.id } } });
    if (!published.data) throw new Error(published.error.code);
    for (const table of published.data) {
      const link = table.scorer_url ?? "";
      const { table: scorer } = clients(baseUrl, token, link.replace(/\/$/, "").split("/").pop());
      for (const [index, record] of hands[game].entries()) {
        const receipt = await scorer.POST("/api/v1/tables/{id}/hands/", {
          params: { path: { id: table.id }, query: { hand: index + 1 },
                    header: { "X-Scorer-Seat": 0, "Idempotency-Key": `table-${table.id}-hand-${index + 1}` } },
          body: record,
        });
        if (receipt.error && refusedByTheEngine(receipt.response, receipt.error)) {
          const refused: Schemas["RecordErrorCode"] = receipt.error.code;
          console.log(`hand ${index + 1} refused: ${refused} at ${receipt.error.path}`);
        } else if (receipt.data) {
          const next: Schemas["NextHand"] | null = receipt.data.session.next;
          console.log(`hand ${receipt.data.hand.number} stored; next dealer ${next?.dealer ?? "none"}`);
        }
      }
    }
    // A dry run of the same record, in German with the seats' names.
    const dryRun = await organiser.POST("/api/v1/records/validate", {
      params: { query: { name: ["Anna", "Beate", "Carla", "Dora"] }, header: { "Accept-Language": "de" } },
      body: hands[game][0],
    });
    const answer: Record<string, unknown> | undefined = dryRun.data;
    const standings = await organiser.GET("/api/v1/events/{id}/standings/", {
      params: { path: { id: event.data.id }, query: { page: 1 } },
    });
    if (!standings.data) throw new Error(standings.error.message);
    rows.push(...standings.data.standings);
    console.log(game, seated.length, stillPublished, answer !== undefined);
  }
  const page = await organiser.GET("/api/v1/players/", { params: { query: { page_size: 500 } } });
  console.log(page.data?.results.length);
  return rows;
}
