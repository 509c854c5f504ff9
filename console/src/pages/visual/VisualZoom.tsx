import { useId } from 'react';

/** How the pictures of a visual change are shown: fitted to the card, at their size, or doubled. */
export type Zoom = 'fit' | '100' | '200';
const zoomLabel: Record<Zoom, string> = { fit: 'Fit', '100': '100 %', '200': '200 %' };

/**
 * The zoom of one change's pictures: a radio group (arrow keys move between the choices, as
 * for any radio group), named "Zoom" by its legend.
 */
export function ZoomControl(props: { value: Zoom; onChange(zoom: Zoom): void }) {
  const name = useId();
  return (
    <fieldset className="visual-zoom">
      <legend>Zoom</legend>
      {(['fit', '100', '200'] as const).map((zoom) => (
        <label key={zoom}>
          <input
            type="radio"
            name={name}
            value={zoom}
            checked={props.value === zoom}
            onChange={() => props.onChange(zoom)}
          />
          {zoomLabel[zoom]}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The width a picture of `width` CSS pixels takes at this zoom (undefined: fitted to its
 * column). Past its column, the picture scrolls inside its frame.
 */
export function zoomedWidth(zoom: Zoom, width: number): number | undefined {
  return zoom === 'fit' ? undefined : width * (zoom === '200' ? 2 : 1);
}

/** Names a picture's scrolling frame, which takes the keyboard focus to scroll when zoomed. */
export function zoomFrameLabel(zoom: Zoom, picture: string): string {
  return `${picture} at ${zoomLabel[zoom]}`;
}
