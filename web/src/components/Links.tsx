import { Anchor, Button, NavLink, type AnchorProps, type ButtonProps, type NavLinkProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import type { AnchorHTMLAttributes, Ref } from 'react';

/**
 * Router links drawn as Mantine components: typed `to`, `params` and `search`, real hrefs
 * (open in a new tab works). Mantine's components are polymorphic, so each is pinned to <a> first.
 */
type A<P> = P & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, keyof P> & { ref?: Ref<HTMLAnchorElement> };

const AnchorA = (props: A<AnchorProps>) => <Anchor component="a" {...props} />;
const ButtonA = (props: A<ButtonProps>) => <Button component="a" {...props} />;
const NavLinkA = (props: A<NavLinkProps>) => <NavLink component="a" {...props} />;

export const AppLink = createLink(AnchorA);
export const ButtonLink = createLink(ButtonA);
export const NavItem = createLink(NavLinkA);
