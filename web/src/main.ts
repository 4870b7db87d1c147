// Entry point: `/` is the home page, `/r/CODE` a room. `?name=Ana` sets the player name
// (and skips the prompt); `?giveup=N` shortens the reconnect time-out (tests).

import { showHome } from "./home/home";
import { mountLobby } from "./home/lobby";
import { Room } from "./room";
import { prompt } from "./core/ui";
import { load, NAME_KEY, normalizeCode, queryParam, save } from "./core/util";

async function start(): Promise<void> {
  const app = document.getElementById("app") as HTMLElement;
  const fromQuery = queryParam("name");
  if (fromQuery && fromQuery.trim()) save(NAME_KEY, fromQuery.trim().slice(0, 32));

  const m = /^\/r\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) {
    showHome(app);
    mountLobby(app);
    return;
  }
  const code = normalizeCode(decodeURIComponent(m[1]));
  if (!code) {
    location.replace("/");
    return;
  }
  let name = load(NAME_KEY);
  if (!name) {
    const got = await prompt("Your name at the table", {
      maxLength: 32,
      ok: "Join",
      hint: "Other players see this name.",
      required: "Type a name to join: the other players see it next to your seat.",
    });
    if (got === null) {
      location.assign("/");
      return;
    }
    name = got.trim().slice(0, 32);
    save(NAME_KEY, name);
  }
  const giveUp = Number(queryParam("giveup"));
  new Room(code, name, { giveUpAfter: Number.isFinite(giveUp) && giveUp > 0 ? giveUp : 60 });
}

void start();
