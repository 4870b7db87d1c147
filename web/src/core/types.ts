// The wire protocol (docs/protocol.md) as TypeScript types. Nothing here has behaviour.

export { TABLE_H, TABLE_W } from "../net/protocol.gen";
/** Card size in table units. A template zone is 110 x 150: the card sits centred in it. */
export const CARD_W = 100;
export const CARD_H = 140;

export type {
  BoardObj,
  ButtonObj,
  CardObj,
  ChipsObj,
  CounterObj,
  DieObj,
  HandObj,
  LabelObj,
  Obj,
  Op,
  StackObj,
} from "../net/protocol.gen";
import type { HandObj, StackObj } from "../net/protocol.gen";

export type Container = StackObj | HandObj;

/** The server's events as the client receives them: generated from the server's structs. */
export type {
  Ack,
  Control,
  Delta,
  FairPending,
  Former,
  GameAction,
  GamePlayer,
  GameView as Game,
  Joined,
  Player,
  RevealLine,
  Snapshot,
} from "../net/protocol.gen";

/** A game a room can play (`GET /api/games`), its options; an error's body. */
export type { ErrorBody as ServerError, GameInfo, OptionInfo } from "../net/protocol.gen";
