/** A rectangle in global logical compositor coordinates unless stated otherwise. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}
