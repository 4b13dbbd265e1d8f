package org.gpusched.core.objective;

import org.gpusched.core.model.InvalidInstanceException;

/**
 * Constants of the per-decision proxy f_OBJ.
 *
 * @param rho            penalty coefficient of postponed jobs (papers: 100)
 * @param horizonSeconds H, the periodic rescheduling interval used in the worst-case tardiness (papers: 1 h)
 * @param mu             cost per idle GPU on a used node (hierarchical paper: 1; ANDREAS: 0)
 * @param chargeMoves    whether f_OBJ charges each move of a running job (migration, resize, preemption) at the
 *                       postponement's scale, rho x weight x the hours it puts the job's end off while some job is short
 *                       of time, else x the lateness it adds
 *                       ({@link org.gpusched.core.model.SchedulingProblem#moveCharge}); the papers do not (false)
 */
public record ObjectiveParameters(double rho, double horizonSeconds, double mu, boolean chargeMoves) {
    public static final ObjectiveParameters DEFAULTS = new ObjectiveParameters(100, 3600, 0);

    public ObjectiveParameters {
        if (!(rho >= 0) || !(horizonSeconds > 0) || !(mu >= 0)) {
            throw new InvalidInstanceException("objective parameters: need rho >= 0, H > 0, mu >= 0; got rho=" + rho
                    + " H=" + horizonSeconds + " mu=" + mu);
        }
    }

    /** The papers' f_OBJ: moves are not charged. */
    public ObjectiveParameters(double rho, double horizonSeconds, double mu) {
        this(rho, horizonSeconds, mu, false);
    }

    public ObjectiveParameters withChargedMoves(boolean charged) {
        return new ObjectiveParameters(rho, horizonSeconds, mu, charged);
    }
}
