/*
 * txlock's lease + renewal + fencing protocol, for the SPIN model checker.  See README.md next to this file.
 *
 * A backend grants one name to one holder at a time, with a lease counted on the backend's clock, and hands out
 * strictly increasing fencing tokens.  N holders acquire, renew (background renewals and extend(), to the same or
 * a shorter lease), release, pause for any time (a step may be postponed past any number of clock ticks) and
 * compute isValid() on their own clock, as the core does (io.txlock.core.Holding):
 *
 *     valid  <=>  now < start of the last confirmed renewal (or of the attempt) + lease - MARGIN
 *
 * Requests and replies may be lost or late; a holder may give up on a call whose outcome it does not know
 * (a LockBackendException), and that request may still reach the backend afterwards, after later ones.
 * A protected resource accepts a fenced write only if its token is >= the highest it has seen.
 *
 * Time is discrete.  At each tick the backend's clock advances by 1 and each holder's clock by 0, 1 or 2, so long
 * as it never falls more than DRIFT ticks behind the backend's over any interval (skew[i] in 0..DRIFT): the
 * bounded-drift assumption.  All times are kept as "ticks left" or "ticks since", so the state space is finite
 * and the check covers runs of any length; only the number of grants is bounded (GRANTS).
 *
 * Checked properties (choose one with -DCHECK_FENCING or -DCHECK_VALIDITY; both without either):
 *   fencing:  a write the resource accepts never belongs to an earlier grant than one it accepted before
 *             (the writes of two grants never interleave, and each token belongs to one grant)
 *   validity: whenever isValid() is true at holder i, the backend holds the name for i's grant, within its lease
 *             (so no other holder is, or can be, granted it at that instant)
 *
 * Variants (each must be REFUTED by spin, see check.sh):
 *   -DREPLY_TIME      validity counted from the reply of the attempt/renewal instead of from its start
 *   -DBUG_B           issue 11 B: after a renewal whose outcome is unknown the old lease is kept
 *   -DUNKNOWN_ONCE    the local lease is cut to the unknown renewal's once, but a later confirmed renewal lifts
 *                     the cut although the unknown request may still reach the backend after it
 *   -DMARGIN=0        margin smaller than the drift (DRIFT is 1)
 *   -DFORGET          the backend may lose its grants (a restart without persistence) but tokens keep growing:
 *                     validity is refuted, fencing still holds
 *   -DFORGET -DTOKEN_RESET   ... and the token counter restarts too: fencing is refuted
 */

#ifndef N
#define N 2
#endif
#ifndef LEASE
#define LEASE 3           /* the lease, in ticks */
#endif
#ifndef SHORT
#define SHORT 2           /* the shorter lease of an extend(shorter) */
#endif
#ifndef MARGIN
#define MARGIN 1          /* the holder's validity ends MARGIN ticks before its lease */
#endif
#ifndef DRIFT
#define DRIFT 1           /* a holder's clock falls at most DRIFT ticks behind the backend's */
#endif
#ifndef GRANTS
#define GRANTS 2          /* grants the backend makes in one run */
#endif

#define NOCAP 255

/* phase of a holder */
#define IDLE      0
#define ACQUIRING 1
#define LATE      2       /* granted after its lease already ran out on its clock: confirmed by one renewal first */
#define HOLDING   3

/* a holder's one call in flight */
#define R_NONE 0
#define R_SENT 1          /* request on its way to the backend */
#define R_OK   2          /* reply on its way: granted / renewed */
#define R_NO   3          /* reply on its way: held by another / renewal refused */

/* backend */
byte owner;               /* holder index + 1, 0 = none */
byte bgid;                /* grant id of the current grant */
byte btok;                /* its fencing token */
byte bleft;               /* its lease: backend ticks left; 0 = expired */
byte grants;              /* grants made (the last grant id) */
byte lasttok;             /* the token counter */

/* holders */
byte phase[N];
byte mygid[N];            /* the grant the holder believes it holds */
byte mytok[N];
byte vleft[N];            /* holder ticks until its lease ends, on its clock (lease - margin from the start) */
byte clen[N];             /* lease of the last confirmed renewal (renewals in the background use it) */
byte ucap[N];             /* ticks left of the shortest lease an unknown-outcome renewal may have set (NOCAP) */
byte skew[N];             /* how far the holder's clock is behind the backend's, 0..DRIFT */
byte req[N];              /* the call in flight */
byte rlen[N];             /* its lease */
byte rsince[N];           /* holder ticks since it was sent */
byte glen[N];             /* a renewal given up on that may still reach the backend (0 = none) */
byte ggid[N];

/* the protected resource and fenced writes in flight */
byte wtok[N];
byte wgid[N];
byte maxtok;              /* highest token accepted */
byte lastgid;             /* grant of the last accepted write */

byte tk;                  /* scratch: a holder clock's advance in a tick, 0 between ticks */

#define min(a, b) ((a) < (b) -> (a) : (b))
#define decr(x, by) x = ((x) > (by) -> (x) - (by) : 0)
#define left(ln, since) ((ln) > MARGIN + (since) -> (ln) - MARGIN - (since) : 0)

#ifdef REPLY_TIME
#define validFor(ln, since) left(ln, 0)
#else
#define validFor(ln, since) left(ln, since)
#endif

/*
 * A shortening renewal counts from the moment it is sent, for as long as it may still reach the backend: while it
 * is in flight, and (ucap) after its sender gave up on it, as long as the lease kept is longer than it.
 */
#ifdef BUG_B
#define capped(i) false
#else
#define inFlightCap(i) (req[i] != R_NONE && rlen[i] < clen[i] && left(rlen[i], rsince[i]) == 0)
#ifdef UNKNOWN_ONCE
#define capped(i) inFlightCap(i)
#else
#define capped(i) (inFlightCap(i) || (ucap[i] != NOCAP && SHORT < clen[i] && ucap[i] == 0))
#endif
#endif
#define leaseOver(i) (vleft[i] == 0 || capped(i))
#define isValid(i) (phase[i] == HOLDING && !leaseOver(i))
#ifdef CHECK_FENCING
#define mayWrite(i) (phase[i] == HOLDING)   /* even long after its lease: a holder paused between check and write */
#else
#define mayWrite(i) isValid(i)
#endif
#define heldByBackend(i) (owner == i + 1 && bgid == mygid[i] && bleft > 0)

inline send(i, ln) {
    req[i] = R_SENT; rlen[i] = ln; rsince[i] = 0
}

inline clearCall(i) {
    req[i] = R_NONE; rlen[i] = 0; rsince[i] = 0
}

/* the holding ended (released, lost, or given up): the core releases the grant; the release may be lost */
inline endHolding(i) {
    if
    :: owner == i + 1 && bgid == mygid[i] -> owner = 0; bgid = 0; btok = 0; bleft = 0
    :: true
    fi;
    phase[i] = IDLE; mygid[i] = 0; mytok[i] = 0; vleft[i] = 0; clen[i] = 0; ucap[i] = NOCAP;
    clearCall(i)
}

/* compare-and-extend in the backend: only this grant; an expired grant nobody took may be extended (a row) or not (a key) */
inline renewInBackend(i) {
    if
    :: owner == i + 1 && bgid == mygid[i] -> bleft = rlen[i]; req[i] = R_OK    /* a row: even expired, if not taken */
    :: owner != i + 1 || bgid != mygid[i] || bleft == 0 -> req[i] = R_NO       /* a key: gone once expired */
    fi;
    printf("backend: renewal of holder %d to lease %d: %d\n", i, rlen[i], req[i] == R_OK)
}

inline tick(i) {
    if
    :: skew[i] < DRIFT -> skew[i]++; tk = 0
    :: tk = 1
    :: skew[i] > 0 -> skew[i]--; tk = 2
    fi;
    decr(vleft[i], tk);
    if
    :: ucap[i] != NOCAP -> decr(ucap[i], tk)
    :: else
    fi;
    if
    :: req[i] != R_NONE -> rsince[i] = min(rsince[i] + tk, LEASE - MARGIN)
    :: else
    fi
}

#ifdef CHECK_FENCING
/* fencing must hold whatever the clocks do: time is abstracted away, the backend's lease may end at any moment */
active proctype clock() {
end:
    do
    :: atomic { bleft > 0 -> bleft = 0 }
    od
}
#else
active proctype clock() {
    byte i;
    do
    :: atomic {
           decr(bleft, 1);
           i = 0;
           do
           :: i < N -> tick(i); i++
           :: else -> break
           od;
           i = 0; tk = 0;
           printf("tick: backend lease left %d; holders' leases left on their clocks %d, %d\n", bleft, vleft[0], vleft[1])
       }
    od
}
#endif

proctype holder(byte i) {
end:
    do
    /* ---- acquire */
    :: atomic { phase[i] == IDLE && grants < GRANTS -> phase[i] = ACQUIRING; send(i, LEASE) }
    :: atomic { phase[i] == ACQUIRING && req[i] == R_SENT ->
           if
           :: (owner == 0 || bleft == 0) && grants < GRANTS ->
                  grants++; lasttok++;
                  owner = i + 1; bgid = grants; btok = lasttok; bleft = LEASE;
                  mygid[i] = bgid; mytok[i] = btok;          /* carried by the reply */
                  req[i] = R_OK;
                  printf("backend: grants holder %d token %d, lease %d\n", i, btok, LEASE)
           :: else -> req[i] = R_NO
           fi }
    :: atomic { phase[i] == ACQUIRING && req[i] == R_OK ->
           if
           :: validFor(LEASE, rsince[i]) > 0 ->
                  phase[i] = HOLDING; vleft[i] = validFor(LEASE, rsince[i]); clen[i] = LEASE; clearCall(i);
                  printf("holder %d: granted token %d, valid for %d on its clock\n", i, mytok[i], vleft[i])
           :: else -> phase[i] = LATE; send(i, LEASE);      /* confirmLateGrant */
                  printf("holder %d: granted after its lease ran out, renews once\n", i)
           fi }
    :: atomic { phase[i] == ACQUIRING && req[i] == R_NO -> phase[i] = IDLE; mygid[i] = 0; mytok[i] = 0; clearCall(i) }
    :: atomic { phase[i] == ACQUIRING && req[i] != R_NONE ->  /* gave up: a grant it may have made runs out */
           phase[i] = IDLE; mygid[i] = 0; mytok[i] = 0; clearCall(i);
           printf("holder %d: acquire failed (reply lost)\n", i) }

    /* ---- the late grant's one renewal */
    :: atomic { phase[i] == LATE && req[i] == R_SENT -> renewInBackend(i) }
    :: atomic { phase[i] == LATE && req[i] == R_OK ->
           if
           :: validFor(rlen[i], rsince[i]) > 0 ->
                  phase[i] = HOLDING; vleft[i] = validFor(rlen[i], rsince[i]); clen[i] = rlen[i]; clearCall(i);
                  printf("holder %d: late grant confirmed, valid for %d\n", i, vleft[i])
           :: else -> endHolding(i)
           fi }
    :: atomic { phase[i] == LATE && req[i] != R_NONE -> endHolding(i) }   /* refused, or gave up */

    /* ---- holding: renew in the background (same lease) or extend (the other one) */
    :: atomic { phase[i] == HOLDING && req[i] == R_NONE && !leaseOver(i) ->
           if
           :: send(i, LEASE)
           :: send(i, SHORT)
           fi;
           printf("holder %d: sends renewal to lease %d\n", i, rlen[i]) }
    :: atomic { phase[i] == HOLDING && req[i] == R_SENT -> renewInBackend(i) }
    :: atomic { phase[i] == HOLDING && req[i] == R_OK ->
           if
           :: leaseOver(i) -> endHolding(i)                 /* confirmed too late: it does not revive the holding */
           :: else -> vleft[i] = validFor(rlen[i], rsince[i]); clen[i] = rlen[i]; clearCall(i);
                  printf("holder %d: renewal confirmed, valid for %d on its clock\n", i, vleft[i])
           fi }
    :: atomic { phase[i] == HOLDING && req[i] == R_NO -> endHolding(i) }
    :: atomic { phase[i] == HOLDING && req[i] != R_NONE ->   /* gave up: outcome unknown (LockBackendException) */
           if
           :: req[i] == R_SENT && glen[i] == 0 -> glen[i] = rlen[i]; ggid[i] = mygid[i]  /* may still arrive */
           :: true
           fi;
           printf("holder %d: renewal to lease %d failed, outcome unknown\n", i, rlen[i]);
#if defined(UNKNOWN_ONCE)
           vleft[i] = min(vleft[i], validFor(rlen[i], rsince[i]));
#elif !defined(BUG_B)
           if
           :: rlen[i] == SHORT -> ucap[i] = min(ucap[i], left(rlen[i], rsince[i]))
           :: else
           fi;
#endif
           clearCall(i) }
    :: atomic { phase[i] == HOLDING && leaseOver(i) -> endHolding(i); printf("holder %d: lease over, lost\n", i) }
    :: atomic { phase[i] == HOLDING -> endHolding(i); printf("holder %d: releases\n", i) }

#if !defined(CHECK_VALIDITY)
    /* ---- fenced write: sent while valid, applied whenever it arrives */
    :: atomic { mayWrite(i) && wtok[i] == 0 -> wtok[i] = mytok[i]; wgid[i] = mygid[i];
           printf("holder %d: sends a write with token %d\n", i, wtok[i]) }
    :: atomic { wtok[i] != 0 ->
           if
           :: wtok[i] >= maxtok ->
                  assert(wgid[i] >= lastgid);
                  printf("resource: accepts token %d of holder %d\n", wtok[i], i);
                  maxtok = wtok[i]; lastgid = wgid[i]
           :: else -> printf("resource: refuses token %d of holder %d\n", wtok[i], i)
           fi;
           wtok[i] = 0; wgid[i] = 0 }
#endif

    /* ---- the network: a renewal given up on arrives late, or never (lost requests and replies: giving up) */
    :: atomic { glen[i] != 0 ->
           if
           :: owner == i + 1 && bgid == ggid[i] -> bleft = glen[i];
                  printf("backend: a late renewal of holder %d to lease %d arrives, applied\n", i, glen[i])
           :: else
           fi;
           glen[i] = 0; ggid[i] = 0 }
    :: atomic { glen[i] != 0 -> glen[i] = 0; ggid[i] = 0 }

#ifdef FORGET
    /* ---- the backend restarts without its grants */
    :: atomic { owner != 0 -> owner = 0; bgid = 0; btok = 0; bleft = 0; printf("backend: restarts empty\n");
#ifdef TOKEN_RESET
           lasttok = 0
#else
           skip
#endif
       }
#endif
    od
}

#if !defined(CHECK_FENCING)
active proctype validity() {
    atomic { !((!isValid(0) || heldByBackend(0)) && (!isValid(1) || heldByBackend(1))
#if N > 2
               && (!isValid(2) || heldByBackend(2))
#endif
             ) -> assert(false) }
}
#endif

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < N -> ucap[i] = NOCAP; run holder(i); i++
        :: else -> break
        od
    }
}
