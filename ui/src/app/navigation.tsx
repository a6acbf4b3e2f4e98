import { createContext, useContext, type ReactNode } from "react";

/** The radius of the cone search a resolved target's "papers nearby" runs, in arcminutes. */
export const NEARBY_RADIUS_ARCMIN = 30;

/** A cone search the Library's Objects view runs when it opens (`id` tells repeats apart). */
export type LibraryRequest = { id: number; near: { name: string; radiusArcmin: number } };

/**
 * How a component deep inside one panel asks the shell to open another. Each is absent
 * where no shell provides it (a panel rendered on its own), and callers then offer nothing.
 */
export type Navigation = {
  /** Opens the Library's Objects view with a cone search around `name` already run. */
  openLibraryNear?: (name: string) => void;
};

const NavigationContext = createContext<Navigation>({});

export function NavigationProvider({ value, children }: { value: Navigation; children: ReactNode }) {
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}

export function useNavigation(): Navigation {
  return useContext(NavigationContext);
}
