/*
 * The commit protocol of Strata's engine (Spec D rules), for the spin model checker.
 *
 * What is modelled, and how small:
 * - NPAGES physical pages. A committed version's contents are one page (its root): the page
 *   holds the number of the version that wrote it, or GARBAGE after a torn write (a page whose
 *   checksum fails). That is enough to state "the recovered version's pages are intact".
 * - Two commit slots {version, root, valid}; `valid` is the slot checksum.
 * - The disk: a durable image plus the writes made since the last sync (pending). A crash may
 *   happen before any step of the writer; each pending write is then lost, applied or torn.
 * - One writer making commits 2 .. MAXV with exactly the engine's steps: choose a free page,
 *   write it (phase 1), sync, write the inactive slot (phase 2), sync, acknowledge, publish.
 *   Or, for an async group's commit (Spec D10), write the page and publish without a sync or
 *   a slot; the group's sync later syncs, writes the inactive slot naming the newest version,
 *   syncs and acknowledges the whole group.
 * - One reader pinning the newest published version, reading its root twice, unpinning.
 *   Free-space rule: a page is reusable only when no pinned, newest or durable version
 *   reaches it.
 *
 * Assertions (the properties Spec D states):
 * - recovery always finds a valid slot;
 * - the recovered version's root page holds exactly that version (intact, never garbage);
 * - the recovered version is at least the last acknowledged one (no acknowledged commit lost);
 * - a page reachable from a pinned version is never overwritten while it is pinned;
 * - the recovered version is one a slot was written for: never a commit inside a group.
 *
 * Known-bad designs, one macro each; spin must find a violation in each:
 *   -DNO_PHASE1_SYNC   phase 1 does not sync: the slot can become durable before the page
 *   -DSINGLE_SLOT      every commit overwrites slot 0: a torn slot write loses everything
 *   -DREUSE_PINNED     free space ignores the reader's pin
 *   -DREUSE_DURABLE    free space ignores the durable version while a group is pending
 */

#define NPAGES   4
#define MAXV     4
#define NONE     0
#define GARBAGE  255

#ifdef REUSE_PINNED
#define REUSE_PINNED_ON true
#else
#define REUSE_PINNED_ON false
#endif
#ifdef REUSE_DURABLE
#define REUSE_DURABLE_ON true
#else
#define REUSE_DURABLE_ON false
#endif

/* The disk. */
byte disk[NPAGES];          /* durable page contents */
byte pendingPage[NPAGES];   /* unsynced page writes (NONE: none) */
byte slotVer[2];            /* durable slots */
byte slotRoot[2];
bool slotValid[2];
byte pendSlotVer[2];        /* unsynced slot writes (pendSlotVer NONE: none) */
byte pendSlotRoot[2];

/* Versions and pins. */
byte rootOf[MAXV + 1];      /* root page of each committed version */
byte newest = 1;            /* the published version */
byte acked = 1;             /* the newest version whose commit returned */
byte durableVer = 1;        /* the version the newest synced slot names */
bool slotted[MAXV + 1];     /* versions a slot was written for */
bool pinned = false;
byte pinnedVer = 0;
bool crashed = false;
/* Scratch for the atomic crash and sync blocks (one writer runs them). */
byte ci;
byte best;
byte k;

/* What a reader sees: the page cache (an unsynced write is visible) or the disk. One read:
   a sync moving the cached write to the disk does not change what it returns. */
inline visible(p, out) {
    atomic {
        if
        :: pendingPage[p] != NONE -> out = pendingPage[p]
        :: else -> out = disk[p]
        fi
    }
}

/* A crash: every pending write is lost, applied or torn; then recovery and its checks. */
inline crash() {
    atomic {
        crashed = true;
        ci = 0;
        do
        :: ci < NPAGES ->
            if
            :: pendingPage[ci] != NONE ->
                if
                :: skip                               /* lost */
                :: disk[ci] = pendingPage[ci]         /* applied */
                :: disk[ci] = GARBAGE                 /* torn: fails its checksum */
                fi
            :: else -> skip
            fi;
            ci++
        :: else -> break
        od;
        ci = 0;
        do
        :: ci < 2 ->
            if
            :: pendSlotVer[ci] != NONE ->
                if
                :: skip
                :: slotVer[ci] = pendSlotVer[ci]; slotRoot[ci] = pendSlotRoot[ci]; slotValid[ci] = true
                :: slotValid[ci] = false              /* torn slot: checksum rejects it */
                fi
            :: else -> skip
            fi;
            ci++
        :: else -> break
        od;
        /* Recovery: the valid slot with the highest version. */
        best = 2;
        if
        :: slotValid[0] && (!slotValid[1] || slotVer[0] >= slotVer[1]) -> best = 0
        :: slotValid[1] && (!slotValid[0] || slotVer[1] > slotVer[0]) -> best = 1
        :: else -> skip
        fi;
        assert(best != 2);                             /* a valid slot exists */
        assert(disk[slotRoot[best]] == slotVer[best]); /* its pages are intact */
        assert(slotVer[best] >= acked);                /* no acknowledged commit lost */
        assert(slotted[slotVer[best]])                 /* never a version inside a group */
    }
}

/* Either crash here (and end the run) or go on. */
inline maybeCrash() {
    if
    :: !crashed -> crash(); goto done
    :: true -> skip
    fi
}

inline syncAll() {
    atomic {
        k = 0;
        do
        :: k < NPAGES ->
            if
            :: pendingPage[k] != NONE -> disk[k] = pendingPage[k]; pendingPage[k] = NONE
            :: else -> skip
            fi;
            k++
        :: else -> break
        od;
        k = 0;
        do
        :: k < 2 ->
            if
            :: pendSlotVer[k] != NONE ->
                slotVer[k] = pendSlotVer[k]; slotRoot[k] = pendSlotRoot[k]; slotValid[k] = true;
                pendSlotVer[k] = NONE
            :: else -> skip
            fi;
            k++
        :: else -> break
        od
    }
}

/* The inactive slot: the one not naming the durable version. */
inline chooseSlot(slot) {
#ifdef SINGLE_SLOT
    slot = 0;
#else
    if
    :: slotValid[0] && slotVer[0] == durableVer -> slot = 1
    :: else -> slot = 0
    fi;
#endif
    skip
}

/* A group's sync (Spec D10): phase 1 covers every deferred page, then one slot names the
   newest version; only then is the group acknowledged. */
inline groupSync() {
    if
    :: newest != durableVer ->
        syncAll();
        maybeCrash();
        chooseSlot(slot);
        atomic { pendSlotVer[slot] = newest; pendSlotRoot[slot] = rootOf[newest]; slotted[newest] = true };
        maybeCrash();
        syncAll();
        acked = newest;
        durableVer = newest;
        maybeCrash()
    :: else -> skip
    fi
}

proctype Writer() {
    byte v = 2;
    byte page;
    byte slot;
    do
    :: v <= MAXV ->
        maybeCrash();
        /* Choose a free page: not the newest version's root, not a pinned version's root, not
           the durable version's root (a crash would recover it). */
        atomic {
            if
            :: 0 != rootOf[newest] && (!pinned || 0 != rootOf[pinnedVer] || REUSE_PINNED_ON) && (0 != rootOf[durableVer] || REUSE_DURABLE_ON) -> page = 0
            :: 1 != rootOf[newest] && (!pinned || 1 != rootOf[pinnedVer] || REUSE_PINNED_ON) && (1 != rootOf[durableVer] || REUSE_DURABLE_ON) -> page = 1
            :: 2 != rootOf[newest] && (!pinned || 2 != rootOf[pinnedVer] || REUSE_PINNED_ON) && (2 != rootOf[durableVer] || REUSE_DURABLE_ON) -> page = 2
            :: 3 != rootOf[newest] && (!pinned || 3 != rootOf[pinnedVer] || REUSE_PINNED_ON) && (3 != rootOf[durableVer] || REUSE_DURABLE_ON) -> page = 3
            fi
        }
        /* Phase 1: write the page. */
        pendingPage[page] = v;
        maybeCrash();
        if
        :: v < MAXV ->
            /* An async group's commit: published without a sync or a slot; maybe the group
               ends here. */
            atomic { rootOf[v] = page; newest = v };
            maybeCrash();
            if
            :: groupSync()
            :: skip
            fi;
            v++;
            goto next
        :: true -> skip
        fi;
        /* A durable commit: sync (covering a pending group's pages too). */
#ifndef NO_PHASE1_SYNC
        syncAll();
        maybeCrash();
#endif
        /* Phase 2: write the inactive slot, sync. */
        chooseSlot(slot);
        atomic { pendSlotVer[slot] = v; pendSlotRoot[slot] = page; slotted[v] = true };
        maybeCrash();
        syncAll();
        acked = v;                  /* the commit returns: acknowledged */
        durableVer = v;
        maybeCrash();
        atomic { rootOf[v] = page; newest = v };   /* publish */
        v++;
next:
        skip
    :: else -> break
    od;
    groupSync();                    /* a pending group is synced before the writer ends */
    maybeCrash();
done:
    skip
}

proctype Reader() {
    byte seen;
    byte rounds = 0;
    do
    :: rounds < 2 && !crashed ->
        atomic { pinned = true; pinnedVer = newest };
        visible(rootOf[pinnedVer], seen);
        assert(crashed || seen == pinnedVer);          /* reads exactly its pinned version */
        visible(rootOf[pinnedVer], seen);
        assert(crashed || seen == pinnedVer);          /* still intact while pinned */
        pinned = false;
        rounds++
    :: else -> break
    od
}

init {
    /* A new file: version 1 in page 0, in slot 0. */
    atomic {
        disk[0] = 1;
        slotVer[0] = 1; slotRoot[0] = 0; slotValid[0] = true;
        slotValid[1] = false;
        slotted[1] = true;
        rootOf[1] = 0;
        run Writer();
        run Reader()
    }
}
